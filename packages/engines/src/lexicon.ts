import type { Lexicon } from './sql-guard.js';

/**
 * How an engine's SQL text quotes and comments, as its own scanner reads them: where code is, and
 * where a string, a quoted name or a comment hides what looks like code. The server finds `:name`
 * parameters by it (query/named-params.ts), so a `:x` the engine reads as part of a name (SQLite's
 * `[:x]`), a string (MySQL's `'\':x'`, PostgreSQL's `E'\':x'`, `$$:x$$`) or a comment is never
 * made a parameter, and one the engine reads as code always is. Each engine's folder has its own
 * (`<engine>/lexicon.ts`); the guards' lexicons are the same facts.
 */
export interface TextLexicon extends Lexicon {
  /** PostgreSQL's `E'...'`: a letter before a string quote that makes a backslash escape in it */
  escapePrefix?: string;
  /** PostgreSQL's dollar quotes: `$$ ... $$`, `$tag$ ... $tag$` */
  dollarQuotes?: boolean;
}

/** SQL as the standard writes it: a default for a family without a lexicon of its own. */
export const STANDARD_LEXICON: TextLexicon = {
  strings: { "'": { backslash: false } },
  identifiers: { '"': '"' },
  lineComment: (text, i) => (text[i] === '-' && text[i + 1] === '-' ? 2 : 0),
  nestedComments: false,
};

const WORD_PART = /[\p{L}\p{N}_$]/u;
/** A dollar quote's opening: `$`, a tag that does not start with a digit (or none), `$`. */
const DOLLAR_TAG = /\$(?:[\p{L}_][\p{L}\p{N}_]*)?\$/uy;

/**
 * Where the string, quoted name or comment that starts at `i` ends (the index after it), or `i`
 * when none starts there. One that never closes runs to the end of the text: the engine will say
 * what is wrong with it.
 */
export function skipQuoted(text: string, i: number, lexicon: TextLexicon): number {
  const c = text[i]!;
  const line = lexicon.lineComment(text, i);
  if (line > 0) {
    const end = text.slice(i + line).search(lexicon.lineEnd ?? /\n/);
    return end === -1 ? text.length : i + line + end + 1;
  }
  if (c === '/' && text[i + 1] === '*') return blockCommentEnd(text, i + 2, lexicon.nestedComments);
  const string = lexicon.strings[c];
  if (string) return quotedEnd(text, i + 1, c, string.backslash);
  const close = lexicon.identifiers[c];
  if (close) return quotedEnd(text, i + 1, close, false);
  // a letter or `$` inside a word (`somE'x'`, `a$b$`) opens nothing
  const startsWord = () => i === 0 || !WORD_PART.test(text[i - 1]!);
  if (lexicon.escapePrefix && c.toLowerCase() === lexicon.escapePrefix && text[i + 1] === "'" && startsWord()) {
    return quotedEnd(text, i + 2, "'", true);
  }
  if (lexicon.dollarQuotes && c === '$' && startsWord()) {
    DOLLAR_TAG.lastIndex = i;
    const tag = DOLLAR_TAG.exec(text)?.[0];
    if (tag) {
      const end = text.indexOf(tag, i + tag.length);
      return end === -1 ? text.length : end + tag.length;
    }
  }
  return i;
}

/** The index after the closing `close` of a quote whose text starts at `from`; a doubled `close` is one character. */
function quotedEnd(text: string, from: number, close: string, backslash: boolean): number {
  for (let i = from; i < text.length; i++) {
    const d = text[i];
    if (backslash && d === '\\') i++;
    else if (d === close) {
      if (text[i + 1] !== close) return i + 1;
      i++;
    }
  }
  return text.length;
}

function blockCommentEnd(text: string, from: number, nested: boolean): number {
  let depth = 1;
  let i = from;
  while (i < text.length && depth > 0) {
    if (text[i] === '*' && text[i + 1] === '/') {
      depth--;
      i += 2;
    } else if (nested && text[i] === '/' && text[i + 1] === '*') {
      depth++;
      i += 2;
    } else i++;
  }
  return i;
}
