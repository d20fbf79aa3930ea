import type { TextLexicon } from '../lexicon.js';

/**
 * MySQL's and MariaDB's lexical rules as the server's sessions have them: backslash escapes in
 * strings (connect.ts keeps NO_BACKSLASH_ESCAPES off), `#` and `-- ` line comments (two dashes
 * and then a space or control character: `1--1` is arithmetic), block comments that do not nest.
 * Double quotes are strings (without ANSI_QUOTES, as the server's sessions run).
 */
export const LEXICON: TextLexicon = {
  strings: { "'": { backslash: true }, '"': { backslash: true } },
  identifiers: { '`': '`' },
  lineComment: (text, i) => {
    if (text[i] === '#') return 1;
    // The server's test is isspace or iscntrl of the next byte (or the end): ASCII space and
    // control characters, DEL among them; `--\u00a0` is no comment to MySQL.
    if (text[i] !== '-' || text[i + 1] !== '-') return 0;
    const next = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
    return next <= 32 || next === 127 ? 2 : 0;
  },
  // sql_lex.cc reads a comment to the newline: a carriage return is part of it
  lineEnd: /\n/,
  nestedComments: false,
};
