export { f, type Value } from './build.js';
export { type ValueCount, ValueTally } from './count.js';
export { normalizeFilterTree, normalizeOperator, parseFilter } from './json.js';
export {
  convertNumber,
  type LexedFilter,
  lexFilter,
  MAX_IDENTIFIER_LENGTH,
  parseFilterExpression,
  VALID_OPERATORS_TEXT,
} from './parse.js';
export * from './tree.js';
export { writeFilter, writeName, writeValue } from './write.js';
