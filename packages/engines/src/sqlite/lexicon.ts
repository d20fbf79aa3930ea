import type { TextLexicon } from '../lexicon.js';

/** SQLite's lexical rules: no backslash escapes, `[...]` names, `--` comments, block comments that may run to the end. */
export const LEXICON: TextLexicon = {
  strings: { "'": { backslash: false } },
  identifiers: { '"': '"', '`': '`', '[': ']' },
  lineComment: (text, i) => (text[i] === '-' && text[i + 1] === '-' ? 2 : 0),
  // the tokenizer reads a comment to the newline: a carriage return is part of it
  lineEnd: /\n/,
  nestedComments: false,
  openCommentEnds: true,
};
