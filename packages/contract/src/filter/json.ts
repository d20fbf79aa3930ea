/**
 * The JSON form of a filter, as a client sends it: validated node by node with errors that
 * name the path (`filter.and[1].op`), and normalised to the same canonical tree the
 * expression parser produces (canonical operators, merged and/or chains, no one-child groups).
 */
import { ToolError } from '../errors.js';
import {
  filterError,
  groupNode,
  MAX_IDENTIFIER_LENGTH,
  nullAdvice,
  nullHint,
  parseFilterExpression,
  snippet,
  VALID_OPERATORS_TEXT,
} from './parse.js';
import {
  COMPARISON_OPS,
  FILTER_LIMITS,
  FILTER_OPS,
  type FilterNode,
  type FilterOp,
  LIST_OPS,
  NULL_OPS,
  PATTERN_OPS,
  type Predicate,
  RANGE_OPS,
  type Scalar,
} from './tree.js';

const NODE_SHAPES = 'a condition {"column", "op", "value"} or a group {"and": [...]}, {"or": [...]} or {"not": {...}}';
const PREDICATE_KEYS = new Set(['column', 'op', 'value']);
const OP_ALIASES: Readonly<Record<string, FilterOp>> = { '<>': '!=', '==': '=' };
/** Longer than any operator, even with extra spaces: no need to normalise it. */
const MAX_OP_LENGTH = 32;

/** Mutable state of one walk: nodes seen so far. */
interface Walk {
  nodes: number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isPlainObject(value)) return 'an object';
  return typeof value === 'object' ? 'a non-plain object' : `a ${typeof value}`;
}

function isOneOf<T extends string>(list: readonly T[], op: string): op is T {
  return (list as readonly string[]).includes(op);
}

/** Canonical operator for a client's spelling (any case, extra spaces, `<>`, `==`). */
export function normalizeOperator(raw: string): FilterOp | undefined {
  if (raw.length > MAX_OP_LENGTH) return undefined;
  const op = raw.trim().toLowerCase().replace(/\s+/g, ' ');
  const canonical = OP_ALIASES[op] ?? op;
  return isOneOf(FILTER_OPS, canonical) ? canonical : undefined;
}

/** Validates a JSON filter tree; throws `ToolError('invalid_filter')` naming the bad path. */
export function normalizeFilterTree(input: unknown, argument = 'filter'): FilterNode {
  return normalizeNode(input, argument, 0, { nodes: 0 });
}

/** `depth` is the number of groups above this node. */
function normalizeNode(input: unknown, path: string, depth: number, walk: Walk): FilterNode {
  if (!isPlainObject(input)) throw filterError(`${path}: expected ${NODE_SHAPES}; got ${typeName(input)}`);
  if (++walk.nodes > FILTER_LIMITS.maxNodes) {
    throw filterError(
      `${path}: the filter has more than ${FILTER_LIMITS.maxNodes} conditions and groups (limit maxNodes)`,
    );
  }
  const keys = Object.keys(input);
  const group = keys.find((key) => key === 'and' || key === 'or' || key === 'not');
  if (group === undefined) return normalizePredicate(input, keys, path);
  const extra = keys.find((key) => key !== group);
  if (extra !== undefined) {
    throw filterError(
      `${path}: unexpected key "${snippet(extra)}" next to "${group}"; a node is exactly one of ${NODE_SHAPES}`,
    );
  }
  // Checked before recursing, so a deeply nested payload cannot overflow the stack.
  if (depth + 1 > FILTER_LIMITS.maxDepth) {
    throw filterError(`${path}: groups nest deeper than the limit (maxDepth) of ${FILTER_LIMITS.maxDepth}`);
  }
  const childPath = `${path}.${group}`;
  if (group === 'not') return { not: normalizeNode(input.not, childPath, depth + 1, walk) };
  return groupNode(group, normalizeChildren(input[group], childPath, depth + 1, walk));
}

function normalizeChildren(input: unknown, path: string, depth: number, walk: Walk): FilterNode[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw filterError(
      `${path}: expected a non-empty array of filter nodes; got ${Array.isArray(input) ? 'an empty array' : typeName(input)}`,
    );
  }
  if (input.length > FILTER_LIMITS.maxNodes) {
    throw filterError(`${path}: ${input.length} entries; the limit (maxNodes) is ${FILTER_LIMITS.maxNodes}`);
  }
  return input.map((child, i) => normalizeNode(child, `${path}[${i}]`, depth, walk));
}

function normalizePredicate(input: Record<string, unknown>, keys: string[], path: string): Predicate {
  if (keys.length === 0) throw filterError(`${path}: empty object; expected ${NODE_SHAPES}`);
  const unknown = keys.find((key) => !PREDICATE_KEYS.has(key));
  if (unknown !== undefined) {
    throw filterError(`${path}: unknown key "${snippet(unknown)}"; expected ${NODE_SHAPES}`);
  }
  const column = normalizeColumn(input.column, `${path}.column`);
  const op = normalizeOp(input.op, `${path}.op`);
  const valuePath = `${path}.value`;
  const value = input.value;
  if (isOneOf(NULL_OPS, op)) return { column, op }; // any value is ignored
  if (value === undefined) throw filterError(`${valuePath}: missing; '${op}' needs ${valueShape(op)}`);
  if (isOneOf(COMPARISON_OPS, op)) {
    if (Array.isArray(value))
      throw filterError(`${valuePath}: '${op}' needs a single value, not an array (use "in" for a list)`);
    return { column, op, value: normalizeScalar(value, valuePath, nullHint(column, op === '!=')) };
  }
  if (isOneOf(LIST_OPS, op)) return { column, op, value: normalizeList(value, valuePath, column) };
  if (isOneOf(RANGE_OPS, op)) return { column, op, value: normalizeRange(value, valuePath, column) };
  if (isOneOf(PATTERN_OPS, op)) {
    if (typeof value !== 'string')
      throw filterError(`${valuePath}: '${op}' needs a string pattern; got ${typeName(value)}`);
    return { column, op, value: normalizeScalar(value, valuePath, '') as string };
  }
  throw filterError(`${path}.op: unsupported operator '${op}'`); // unreachable while FILTER_OPS is covered above
}

function valueShape(op: FilterOp): string {
  if (isOneOf(LIST_OPS, op)) return 'a non-empty array of values';
  if (isOneOf(RANGE_OPS, op)) return 'an array of two values [low, high]';
  if (isOneOf(PATTERN_OPS, op)) return 'a string pattern';
  return 'a value';
}

function normalizeColumn(input: unknown, path: string): string {
  if (typeof input !== 'string')
    throw filterError(
      `${path}: expected a column name (a string); got ${input === undefined ? 'nothing' : typeName(input)}`,
    );
  if (input.length === 0) throw filterError(`${path}: the column name is empty`);
  if (input.length > MAX_IDENTIFIER_LENGTH) {
    throw filterError(`${path}: the column name is longer than ${MAX_IDENTIFIER_LENGTH} characters`);
  }
  if (/\p{Cc}/u.test(input)) throw filterError(`${path}: the column name contains a control character`);
  return input;
}

function normalizeOp(input: unknown, path: string): FilterOp {
  if (typeof input !== 'string') {
    throw filterError(
      `${path}: expected an operator (a string); got ${input === undefined ? 'nothing' : typeName(input)}; valid operators: ${VALID_OPERATORS_TEXT}`,
    );
  }
  const op = normalizeOperator(input);
  if (op === undefined)
    throw filterError(`${path}: unknown operator '${snippet(input)}'; valid operators: ${VALID_OPERATORS_TEXT}`);
  return op;
}

function normalizeList(input: unknown, path: string, column: string): Exclude<Scalar, null>[] {
  if (!Array.isArray(input) || input.length === 0) {
    throw filterError(
      `${path}: 'in' needs a non-empty array of values; got ${Array.isArray(input) ? 'an empty array' : typeName(input)}`,
    );
  }
  if (input.length > FILTER_LIMITS.maxListValues) {
    throw filterError(`${path}: ${input.length} values; the limit (maxListValues) is ${FILTER_LIMITS.maxListValues}`);
  }
  const hint = `null in an in list never matches; ${nullAdvice(column, false)} (combined with or)`;
  return input.map((item, i) => normalizeScalar(item, path, hint, i));
}

function normalizeRange(input: unknown, path: string, column: string): [Scalar, Scalar] {
  if (!Array.isArray(input) || input.length !== 2) {
    const got = Array.isArray(input) ? `an array of ${input.length}` : typeName(input);
    throw filterError(`${path}: 'between' needs an array of two values [low, high]; got ${got}`);
  }
  const hint = nullHint(column, false);
  return [normalizeScalar(input[0], path, hint, 0), normalizeScalar(input[1], path, hint, 1)];
}

/** A list's item as errors name it (`filter.value[7]`): made only for an error, as a list may hold a thousand. */
function itemPath(path: string, index: number | undefined): string {
  return index === undefined ? path : `${path}[${index}]`;
}

/**
 * A string, finite number or boolean; `nullReason` explains why null is refused here. `path`
 * and `index` (for a list's item) name the value in errors.
 */
function normalizeScalar(input: unknown, path: string, nullReason: string, index?: number): Exclude<Scalar, null> {
  if (input === null) throw filterError(`${itemPath(path, index)}: ${nullReason}`);
  if (typeof input === 'boolean') return input;
  if (typeof input === 'string') {
    if (input.length > FILTER_LIMITS.maxLiteralLength) {
      throw filterError(
        `${itemPath(path, index)}: the string is ${input.length} characters long; the limit (maxLiteralLength) is ${FILTER_LIMITS.maxLiteralLength}`,
      );
    }
    if (input.includes('\u0000'))
      throw filterError(`${itemPath(path, index)}: NUL characters (U+0000) are not allowed in strings`);
    return input;
  }
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw filterError(`${itemPath(path, index)}: numbers must be finite`);
    // A JSON number this large was already rounded when it was parsed: make the client say it exactly.
    if (Number.isInteger(input) && !Number.isSafeInteger(input)) {
      throw filterError(
        `${itemPath(path, index)}: the integer ${snippet(String(input))} is beyond ±(2^53-1) and may have lost digits; send it as a string`,
      );
    }
    return input === 0 ? 0 : input; // -0 becomes 0
  }
  throw filterError(`${itemPath(path, index)}: expected a string, number or boolean; got ${typeName(input)}`);
}

/**
 * Either filter form: an expression string or a JSON tree. `argument` names it in errors
 * (`having` takes the same language as `filter`, and its mistakes must say `having`).
 */
export function parseFilter(input: string | object, argument = 'filter'): FilterNode {
  if (typeof input === 'object' && input !== null) return normalizeFilterTree(input, argument);
  if (typeof input !== 'string') {
    throw filterError(`${argument}: expected an expression string or a JSON filter object; got ${typeName(input)}`);
  }
  try {
    return parseFilterExpression(input);
  } catch (error) {
    // The expression parser's messages all start with "filter".
    if (argument === 'filter' || !(error instanceof ToolError) || !error.message.startsWith('filter')) throw error;
    throw new ToolError(error.code, `${argument}${error.message.slice('filter'.length)}`);
  }
}
