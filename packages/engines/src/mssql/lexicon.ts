import type { TextLexicon } from '../lexicon.js';

/** T-SQL's lexical rules: `''` in strings, `[...]` and `"..."` names, block comments that nest. */
export const LEXICON: TextLexicon = {
  strings: { "'": { backslash: false } },
  identifiers: { '[': ']', '"': '"' },
  lineComment: (text, i) => (text[i] === '-' && text[i + 1] === '-' ? 2 : 0),
  nestedComments: true,
};
