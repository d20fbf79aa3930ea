import { ToolError } from '@mcp-db-bench/contract';

/**
 * What the `sql` tool's guards share: a refusal, a table of forbidden names, and a scanner for
 * engines without a parser of their own in reach. Each engine's lists and lexical rules live in
 * its folder (`<engine>/sql-guard.ts`); this file knows no engine.
 */

/**
 * What the operator allows beyond a guard's own judgement, on their responsibility. Names are
 * lower-case and compared without regard to case.
 */
export interface SqlPolicy {
  /** functions a statement may call although the guard would refuse them */
  readonly allowFunctions: ReadonlySet<string>;
}

/** Nothing allowed beyond the guard's own judgement. */
export const DEFAULT_SQL_POLICY: SqlPolicy = { allowFunctions: new Set() };

/** The error every guard throws: what was refused, and why. */
export function refuse(what: string, why: string): never {
  throw new ToolError('invalid_argument', `sql: ${what} is not allowed: ${why}; the sql tool only reads rows`);
}

/** Names a guard refuses, exactly or by prefix, each with its reason. Matched without regard to case. */
export interface ForbiddenNames {
  exact: Readonly<Record<string, string>>;
  prefixes?: Readonly<Record<string, string>>;
}

/** Why `name` is forbidden, or undefined. */
export function forbiddenReason(names: ForbiddenNames, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (Object.hasOwn(names.exact, lower)) return names.exact[lower];
  for (const [prefix, why] of Object.entries(names.prefixes ?? {})) if (lower.startsWith(prefix)) return why;
  return undefined;
}

/** How one engine splits text into tokens: what quotes and comments look like there. */
export interface Lexicon {
  /** string quotes; `backslash`: a backslash escapes the next character (MySQL) */
  strings: Readonly<Record<string, { backslash: boolean }>>;
  /** identifier quotes, opening to closing; a doubled closing character is the character itself */
  identifiers: Readonly<Record<string, string>>;
  /** the length of a line comment's opener at `i`, or 0 (MySQL's `-- ` needs a space after the dashes) */
  lineComment(text: string, i: number): number;
  /**
   * what ends a line comment, where the engine's rule is known (a newline, for MySQL and SQLite).
   * Unknown: a comment runs to the newline, and a carriage return inside one is refused, since
   * either reading of it could hide code from the other.
   */
  lineEnd?: RegExp;
  /** `/* /* *\/ *\/` is one comment (SQL Server) */
  nestedComments: boolean;
  /** an unclosed block comment runs to the end of the text instead of being an error (SQLite) */
  openCommentEnds?: boolean;
  /** what separates tokens; default: any Unicode space (\s) */
  space?: RegExp;
  /**
   * The engine's own reading of the token at `i` where it is not a space, comment, string or quoted
   * name (MySQL: where a number ends, names after a qualifier or `@`): its end and kind, or
   * undefined for the default (a run of letters, digits, `_` and `$` is a word, else one symbol).
   */
  token?(text: string, i: number, previous: readonly Token[]): { end: number; kind: TokenKind } | undefined;
}

export type TokenKind = 'word' | 'identifier' | 'number' | 'string' | 'comment' | 'symbol';

export interface Token {
  kind: TokenKind;
  /** the text as written */
  text: string;
  /** a quoted identifier or string without its quotes and escapes; a word as written */
  value: string;
  /** where it ends in the text: a token that ends where the next begins touches it */
  end: number;
}

const WORD = /[\p{L}\p{N}_$]/u;

/**
 * Splits SQL text into words, quoted identifiers, strings, comments and symbols, by the engine's
 * lexical rules. A quote or comment that never closes is refused: the engine would read the text
 * differently or not at all, and text whose reading is in doubt is not run.
 */
export function scan(text: string, lexicon: Lexicon): Token[] {
  const out: Token[] = [];
  let i = 0;
  const unclosed = (what: string): never => refuse(`an unclosed ${what}`, 'the statement must be complete');
  while (i < text.length) {
    const c = text[i]!;
    const start = i;
    if ((lexicon.space ?? /\s/).test(c)) {
      i++;
      continue;
    }
    const line = lexicon.lineComment(text, i);
    if (line > 0) {
      const end = text.slice(i + line).search(lexicon.lineEnd ?? /\n/);
      i = end === -1 ? text.length : i + line + end + 1;
      if (!lexicon.lineEnd && text.slice(start, i).includes('\r'))
        refuse('a carriage return in a line comment', 'it may end the comment or not');
      out.push({ kind: 'comment', text: text.slice(start, i), value: '', end: i });
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      let depth = 1;
      i += 2;
      while (i < text.length && depth > 0) {
        if (text[i] === '*' && text[i + 1] === '/') {
          depth--;
          i += 2;
        } else if (lexicon.nestedComments && text[i] === '/' && text[i + 1] === '*') {
          depth++;
          i += 2;
        } else i++;
      }
      if (depth > 0 && !lexicon.openCommentEnds) unclosed('comment');
      out.push({ kind: 'comment', text: text.slice(start, i), value: '', end: i });
      continue;
    }
    const string = lexicon.strings[c];
    const close = lexicon.identifiers[c];
    if (string || close) {
      const end = close ?? c;
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) unclosed(string ? 'string' : 'quoted identifier');
        const d = text[i]!;
        if (string?.backslash && d === '\\') {
          value += text[i + 1] ?? '';
          i += 2;
        } else if (d === end && text[i + 1] === end) {
          value += end;
          i += 2;
        } else if (d === end) {
          i++;
          break;
        } else {
          value += d;
          i++;
        }
      }
      out.push({ kind: string ? 'string' : 'identifier', text: text.slice(start, i), value, end: i });
      continue;
    }
    const own = lexicon.token?.(text, i, out);
    if (own) {
      i = own.end;
      const written = text.slice(start, i);
      out.push({ kind: own.kind, text: written, value: written, end: i });
      continue;
    }
    if (WORD.test(c)) {
      while (i < text.length && WORD.test(text[i]!)) i++;
      out.push({ kind: 'word', text: text.slice(start, i), value: text.slice(start, i), end: i });
      continue;
    }
    i++;
    out.push({ kind: 'symbol', text: c, value: c, end: i });
  }
  return out;
}

/** Refuses the first word or quoted identifier that `names` forbids, naming it as written. */
export function refuseNames(tokens: readonly Token[], names: ForbiddenNames): void {
  for (const t of tokens) {
    if (t.kind !== 'word' && t.kind !== 'identifier') continue;
    const why = forbiddenReason(names, t.value);
    if (why !== undefined) refuse(t.value.toUpperCase(), why);
  }
}
