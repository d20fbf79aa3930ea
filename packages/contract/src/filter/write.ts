/**
 * The literal writer: a filter tree as expression text that `parseFilterExpression` reads back
 * as the same tree. Strings go in single quotes with quotes doubled, a column that is not a
 * plain name (or is a keyword) in double quotes; anything the language cannot carry (null in a
 * comparison, NUL, an integer past 2^53, an empty group) is refused rather than written wrong.
 */
import { filterError, KEYWORDS, MAX_IDENTIFIER_LENGTH } from './parse.js';
import type { FilterNode, Predicate, Scalar } from './tree.js';

const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/** A filter tree as expression text; throws `ToolError('invalid_filter')` for what has no text. */
export function writeFilter(node: FilterNode): string {
  if ('and' in node) return join(node.and, ' and ', (child) => 'or' in child);
  if ('or' in node) return join(node.or, ' or ', () => false);
  if ('not' in node) {
    const inner = writeFilter(node.not);
    return 'and' in node.not || 'or' in node.not ? `not (${inner})` : `not ${inner}`;
  }
  return writePredicate(node);
}

/** `and` binds tighter than `or`: only an `or` inside an `and` needs parentheses. */
function join(children: FilterNode[], separator: string, needsParens: (child: FilterNode) => boolean): string {
  if (children.length === 0) throw filterError('filter: an empty and/or group has no text');
  return children.map((child) => (needsParens(child) ? `(${writeFilter(child)})` : writeFilter(child))).join(separator);
}

function writePredicate(p: Predicate): string {
  const column = writeName(p.column);
  switch (p.op) {
    case 'is null':
    case 'is not null':
      return `${column} ${p.op}`;
    case 'in':
    case 'not in':
      if (p.value.length === 0) throw filterError(`filter: an empty ${p.op} list has no text`);
      return `${column} ${p.op} (${p.value.map(writeValue).join(', ')})`;
    case 'between':
    case 'not between':
      return `${column} ${p.op} ${writeValue(p.value[0])} and ${writeValue(p.value[1])}`;
    default:
      return `${column} ${p.op} ${writeValue(p.value)}`;
  }
}

/** A column name: bare when the tokenizer reads it as one, else a double-quoted identifier. */
export function writeName(name: string): string {
  if (name.length === 0 || name.length > MAX_IDENTIFIER_LENGTH || /\p{Cc}/u.test(name)) {
    throw filterError(`filter: the column name ${JSON.stringify(name.slice(0, 30))} cannot be written`);
  }
  return BARE_NAME.test(name) && !KEYWORDS.has(name.toLowerCase()) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** A literal: a string, a finite number the parser reads back as that number, or a boolean. */
export function writeValue(value: Scalar): string {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw filterError('filter: NUL characters (U+0000) are not allowed in strings');
    return `'${value.replaceAll("'", "''")}'`;
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    // past 2^53 the parser keeps the digits as text: such a value travels as a string
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
      throw filterError(`filter: the number ${value} has no exact literal; send it as a string`);
    }
    return String(value);
  }
  throw filterError('filter: null is never equal to anything; use is null');
}
