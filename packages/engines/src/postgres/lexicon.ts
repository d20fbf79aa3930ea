import type { TextLexicon } from '../lexicon.js';

/**
 * PostgreSQL's lexical rules (scan.l), with standard_conforming_strings on (the default since
 * 9.1): a backslash is a character in '...' and an escape in E'...', "..." names, dollar-quoted
 * bodies ($$...$$, $tag$...$tag$), `--` comments to the end of the line (a carriage return ends
 * one too), block comments that nest.
 */
export const LEXICON: TextLexicon = {
  strings: { "'": { backslash: false } },
  identifiers: { '"': '"' },
  lineComment: (text, i) => (text[i] === '-' && text[i + 1] === '-' ? 2 : 0),
  lineEnd: /[\n\r]/,
  nestedComments: true,
  escapePrefix: 'e',
  dollarQuotes: true,
};
