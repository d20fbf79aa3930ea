import type { TextLexicon } from '../lexicon.js';
import { refuse, scan, type Token, type TokenKind } from '../sql-guard.js';

/**
 * MySQL's and MariaDB's lexical rules, as MariaDB 10.11's `Lex_input_stream::lex_one_token`
 * (sql/sql_lex.cc) reads a statement in the sessions connect.ts makes (utf8mb4, backslash escapes
 * on, NO_BACKSLASH_ESCAPES off). Each rule below names the lexer state it follows.
 */

const DIGIT = /[0-9]/;
/** `ident_map` of utf8mb4: ASCII letters, digits, `_`, `$`, and every byte of a multi-byte character */
const IDENT = /[A-Za-z0-9_$\u0080-\uffff]/;
/** `@name` (MY_LEX_HOSTNAME): my_isalnum, `.`, `_`, `$`; multi-byte characters count as letters */
const AT_NAME = /[A-Za-z0-9._$\u0080-\uffff]/;

/** `0x` and `0b` literals' digits */
const RADIX: Readonly<Record<string, RegExp>> = { x: /[0-9A-Fa-f]/, b: /[01]/ };

const isDigit = (c: string | undefined) => c !== undefined && DIGIT.test(c);
export const isIdent = (c: string | undefined) => c !== undefined && IDENT.test(c);

/** Where a run of identifier characters from `i` ends. */
function identEnd(text: string, i: number): number {
  let j = i;
  while (isIdent(text[j])) j++;
  return j;
}

/**
 * MY_LEX_REAL: the digits after a decimal point, then an exponent. An `e` with no digit after it
 * (and its sign) makes the server return the next character alone, dropping the number: no
 * reading of that is worth the doubt, so it is refused.
 */
function realEnd(text: string, j: number): number {
  while (isDigit(text[j])) j++;
  if (text[j] !== 'e' && text[j] !== 'E') return j;
  let k = j + 1;
  if (text[k] === '+' || text[k] === '-') k++;
  if (!isDigit(text[k]))
    refuse(
      'a number whose exponent has no digits (1.5e)',
      'MariaDB reads the character after it alone and drops the number',
    );
  while (isDigit(text[k])) k++;
  return k;
}

/**
 * MY_LEX_NUMBER_IDENT, at a digit. `0x` + hex digits and `0b` + binary digits are literals when
 * no identifier character follows (`0x1F`), else the whole run is a name (`0x1Fg`). Otherwise
 * the digits are read: with no identifier character after them it is an integer, or a decimal
 * when a `.` follows (MY_LEX_INT_OR_REAL, MY_LEX_REAL: `1.5into` is `1.5` and `into`); digits
 * and `e` and a digit (or a sign and a digit) are a float that ends where its digits end (`1e5x`
 * is `1e5` and `x`); any other identifier character makes the whole run a name (`1abc`, `1e`, `1ex`).
 */
function numberOrName(text: string, i: number): { end: number; kind: TokenKind } {
  const radix = text[i] === '0' ? RADIX[text[i + 1] ?? ''] : undefined;
  if (radix) {
    let j = i + 2;
    while (j < text.length && radix.test(text[j]!)) j++;
    return j > i + 2 && !isIdent(text[j]) ? { end: j, kind: 'number' } : { end: identEnd(text, i), kind: 'identifier' };
  }
  let j = i;
  while (isDigit(text[j])) j++;
  const c = text[j];
  if (!isIdent(c)) {
    // `1..2` is 1 and `..` (FOR i IN 1..10)
    if (c !== '.' || text[j + 1] === '.') return { end: j, kind: 'number' };
    return { end: realEnd(text, j + 1), kind: 'number' };
  }
  if ((c === 'e' || c === 'E') && (isDigit(text[j + 1]) || (/[+-]/.test(text[j + 1] ?? '') && isDigit(text[j + 2])))) {
    let k = j + (isDigit(text[j + 1]) ? 1 : 2);
    while (isDigit(text[k])) k++;
    return { end: k, kind: 'number' };
  }
  return { end: identEnd(text, i), kind: 'identifier' };
}

/** The token just before `i`, when it ends exactly there. */
const touching = (previous: readonly Token[], i: number, back = 1): Token | undefined => {
  const t = previous[previous.length - back];
  return t && t.end === i - (back - 1) ? t : undefined;
};

/**
 * The server's own token boundaries where they differ from a plain run of word characters:
 * - after `@` (not `@@`) comes MY_LEX_HOSTNAME: letters, digits, `.`, `_` and `$` (`@m1.x` is one name);
 * - after `@@`, and after a `.` that follows a name (MY_LEX_IDENT_SEP, then MY_LEX_IDENT_START),
 *   the whole run of identifier characters is a name, never a number or a keyword (`t.1e5`, `t.into`);
 * - a `.` before a digit starts a number (MY_LEX_REAL_OR_POINT: `.5into` is `.5` and `into`), and
 *   `..` is one token;
 * - a digit starts a number or a name (numberOrName).
 */
function token(text: string, i: number, previous: readonly Token[]): { end: number; kind: TokenKind } | undefined {
  const c = text[i]!;
  const before = touching(previous, i);
  if (before?.value === '@' && before.kind === 'symbol') {
    const second = touching(previous, i, 2);
    // scan_ident_sysvar: a run of identifier characters, which may be a keyword (`@@global.x`)
    if (second?.value === '@' && second.kind === 'symbol')
      return isIdent(c) ? { end: identEnd(text, i), kind: isDigit(c) ? 'identifier' : 'word' } : undefined;
    let j = i;
    while (j < text.length && AT_NAME.test(text[j]!)) j++;
    return j > i ? { end: j, kind: 'identifier' } : undefined;
  }
  if (before?.value === '.' && before.kind === 'symbol' && isIdent(c))
    return { end: identEnd(text, i), kind: 'identifier' };
  // MY_LEX_REAL_OR_POINT's DOT_DOT_SYM (`FOR i IN 1..10`), after which names are read as usual
  if (c === '.' && text[i + 1] === '.') return { end: i + 2, kind: 'symbol' };
  if (c === '.' && isDigit(text[i + 1])) {
    const name = before && (before.kind === 'word' || before.kind === 'identifier') && !before.text.startsWith('`');
    // `t.5` after a name is the separator and then a name (above); `.5` anywhere else is a number
    if (!name) return { end: realEnd(text, i + 1), kind: 'number' };
  }
  if (isDigit(c)) return numberOrName(text, i);
  if (isIdent(c)) return { end: identEnd(text, i), kind: 'word' };
  return undefined;
}

/**
 * MySQL's and MariaDB's lexicon: backslash escapes in strings (connect.ts keeps
 * NO_BACKSLASH_ESCAPES off), `#` and `-- ` line comments (two dashes and then a space or control
 * character: `1--1` is arithmetic), block comments that do not nest. Double quotes are strings, or
 * identifiers under ANSI_QUOTES: the guard reads them as both. Only ASCII spaces separate tokens
 * (MY_LEX_SKIP); any other character of two bytes or more is part of a name, as `ident_map` has it.
 */
export const LEXICON: TextLexicon = {
  strings: { "'": { backslash: true }, '"': { backslash: true } },
  identifiers: { '`': '`' },
  lineComment: (text, i) => {
    if (text[i] === '#') return 1;
    // MY_LEX_MINUS_OR_COMMENT: isspace or iscntrl of the next byte (or the end): ASCII space and
    // control characters, DEL among them; `--\u00a0` is no comment to MySQL, so not to us.
    if (text[i] !== '-' || text[i + 1] !== '-') return 0;
    const next = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    return next <= 32 || next === 127 ? 2 : 0;
  },
  // MY_LEX_COMMENT reads to the newline: a carriage return is part of the comment
  lineEnd: /\n/,
  nestedComments: false,
  space: /[ \t\n\v\f\r]/,
  token,
};

/**
 * The text as the guard reads it (the differential tests compare this reading with the server's).
 * A version comment (`/*! ... *\/`, `/*M! ... *\/`) is code to a server of that version or later and
 * a comment to older ones: no reading fits both, so it is refused here, and so are a control
 * character outside a string or comment and a backslash in double quotes (a string, or a name under
 * ANSI_QUOTES, where a backslash escapes nothing).
 */
export function lex(text: string): Token[] {
  const tokens = scan(text, LEXICON);
  for (const t of tokens) {
    // Under ANSI_QUOTES a backslash ends nothing in a quoted name: the two readings would differ.
    if (t.text.startsWith('"') && t.text.includes('\\'))
      refuse('a backslash in double quotes', 'ANSI_QUOTES would read the text differently; use single quotes');
    if (t.kind === 'comment' && /^\/\*M?!/.test(t.text))
      refuse('an executable comment (/*! ... */)', 'MySQL runs its text as code');
    // The server reads one as a stray character (a syntax error); nothing needs one, so it never gets that far.
    if (t.kind === 'symbol' && (t.value.charCodeAt(0) < 32 || t.value === '\x7f'))
      refuse('a control character outside a string', 'only spaces, tabs and line breaks separate words');
  }
  return tokens;
}
