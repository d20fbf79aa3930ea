import type { FilterNode, PortableType, Scalar } from '@mcp-db-bench/contract';
import { ToolError } from '@mcp-db-bench/contract';
import type { Engine } from '@mcp-db-bench/engines';
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import { coerceValue } from './coerce.js';

/** What a filter's `column` names: a table column, or in `having` an aggregate's output. */
export interface Operand {
  expr: Expression<unknown>;
  type: PortableType;
  scale: number | null;
}

export type OperandResolver = (name: string, path: string) => Operand;

/** Our operators to SQL text. Only these strings ever reach SQL from an operator. */
const COMPARISON_SQL: Record<string, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/**
 * Compiles a filter tree to a SQL boolean expression. Names resolve through `resolve` (which
 * rejects unknown ones), values are checked against the operand's type and bound as
 * parameters; no text from the caller reaches the SQL except as a parameter.
 */
export function compileFilter(
  node: FilterNode,
  resolve: OperandResolver,
  engine: Engine,
  path = 'filter',
): RawBuilder<SqlBool> {
  if ('and' in node || 'or' in node) {
    const [word, children] = 'and' in node ? ['and', node.and] : ['or', node.or];
    const parts = children.map((child, i) => compileFilter(child, resolve, engine, `${path}.${word}[${i}]`));
    return sql<SqlBool>`(${sql.join(parts, sql.raw(` ${word} `))})`;
  }
  if ('not' in node) return sql<SqlBool>`not (${compileFilter(node.not, resolve, engine, `${path}.not`)})`;

  const operand = resolve(node.column, `${path}.column`);
  const { expr } = operand;
  // where a value sits, made only for an error: a list may hold a thousand
  const bind = (value: Scalar, index?: number) => param(operand, value, engine, () => valuePath(path, index));
  switch (node.op) {
    case 'is null':
      return sql<SqlBool>`${expr} is null`;
    case 'is not null':
      return sql<SqlBool>`${expr} is not null`;
    case 'in':
    case 'not in': {
      const values = node.value.map((v, i) => bind(v, i));
      return sql<SqlBool>`${expr} ${sql.raw(node.op)} (${sql.join(values)})`;
    }
    case 'between':
    case 'not between':
      return sql<SqlBool>`${expr} ${sql.raw(node.op)} ${bind(node.value[0], 0)} and ${bind(node.value[1], 1)}`;
    case 'like':
    case 'not like': {
      if (operand.type !== 'text' && operand.type !== 'unknown') {
        throw new ToolError('type_mismatch', `${path}: like needs a text column; ${node.column} is ${operand.type}`);
      }
      // One escape character on every engine; '[' is a wildcard on SQL Server, so it is escaped too.
      return sql<SqlBool>`${expr} ${sql.raw(node.op)} ${likePattern(node.value)} escape '!'`;
    }
    default:
      return sql<SqlBool>`${expr} ${sql.raw(COMPARISON_SQL[node.op]!)} ${bind(node.value)}`;
  }
}

/**
 * A value `compileFilter` binds: the type it is checked against, where it sits (for errors: the
 * predicate's path, and its place in a list or range), and whether it is a like pattern.
 */
export interface FilterSlot {
  value: Scalar;
  type: PortableType;
  path: string;
  index: number | undefined;
  pattern: boolean;
}

/** Where a predicate's value sits, as errors name it (`filter.or[2].value[7]`): made only for an error. */
function valuePath(path: string, index: number | undefined): string {
  return index === undefined ? `${path}.value` : `${path}.value[${index}]`;
}

/**
 * The values `compileFilter` binds for `node`, in the order its SQL binds them: what a later
 * call of an already compiled shape binds (query/shapes.ts), through {@link bindSlot}.
 * `typeOf` resolves a column name as `compileFilter`'s resolver does, to its type alone.
 */
export function filterSlots(
  node: FilterNode,
  typeOf: (name: string, path: string) => PortableType,
  path = 'filter',
  out: FilterSlot[] = [],
): FilterSlot[] {
  if ('and' in node || 'or' in node) {
    const [word, children] = 'and' in node ? ['and', node.and] : ['or', node.or];
    for (const [i, child] of children.entries()) filterSlots(child, typeOf, `${path}.${word}[${i}]`, out);
    return out;
  }
  if ('not' in node) return filterSlots(node.not, typeOf, `${path}.not`, out);
  const type = typeOf(node.column, `${path}.column`);
  const slot = (value: Scalar, index?: number, pattern = false) => out.push({ value, type, path, index, pattern });
  switch (node.op) {
    case 'is null':
    case 'is not null':
      break;
    case 'in':
    case 'not in':
      for (let i = 0; i < node.value.length; i++) slot(node.value[i]!, i);
      break;
    case 'between':
    case 'not between':
      slot(node.value[0], 0);
      slot(node.value[1], 1);
      break;
    case 'like':
    case 'not like':
      slot(node.value, undefined, true);
      break;
    default:
      slot(node.value);
  }
  return out;
}

/** The parameter `compileFilter` binds for `value` in `slot`, with the same checks and errors. */
export function bindSlot(slot: FilterSlot, value: Scalar, engine: Engine): unknown {
  return slot.pattern
    ? likePattern(value as string)
    : param(slot, value, engine, () => valuePath(slot.path, slot.index));
}

/** The parameters `compileFilter` binds for `node`, in its order (see {@link filterSlots}). */
export function filterParams(
  node: FilterNode,
  typeOf: (name: string, path: string) => PortableType,
  engine: Engine,
  path = 'filter',
): unknown[] {
  return filterSlots(node, typeOf, path).map((slot) => bindSlot(slot, slot.value, engine));
}

function param(operand: Pick<Operand, 'type'>, value: Scalar, engine: Engine, at: string | (() => string)): unknown {
  if (value === null) {
    const where = typeof at === 'string' ? at : at();
    throw new ToolError('invalid_filter', `${where}: null never compares equal in SQL; use is null / is not null`);
  }
  return engine.encodeParam(operand.type, coerceValue(operand.type, value, at));
}

const BACKSLASH = 0x5c;
const BANG = 0x21;
const BRACKET = 0x5b;
const PERCENT = 0x25;
const UNDERSCORE = 0x5f;
/** Escaped with `!`: the wildcards, the escape character, and SQL Server's `[`. */
const escaped = (c: number) => c === PERCENT || c === UNDERSCORE || c === BANG || c === BRACKET;
/** Characters per String.fromCharCode call, well within any engine's limit on arguments. */
const CHUNK = 8192;
let units = new Uint16Array(CHUNK);

/**
 * Our pattern syntax (`\` escapes `%`, `_` and itself) to SQL with `!` as the escape character.
 * Written into code units and made a string once: a filter may hold 500 patterns of 4,000
 * characters, and a string grown a character at a time cost each of them a rope to flatten.
 */
export function likePattern(pattern: string): string {
  if (!pattern.includes('\\') && !pattern.includes('!') && !pattern.includes('[')) return pattern;
  if (units.length < pattern.length * 2) units = new Uint16Array(pattern.length * 2);
  let n = 0;
  for (let i = 0; i < pattern.length; i++) {
    let c = pattern.charCodeAt(i);
    if (c === BACKSLASH && i + 1 < pattern.length) {
      c = pattern.charCodeAt(++i);
      if (escaped(c)) units[n++] = BANG;
    } else if (c === BANG || c === BRACKET) units[n++] = BANG;
    units[n++] = c;
  }
  let out = '';
  // apply, not spread: spreading a typed array walks an iterator, several times slower
  for (let at = 0; at < n; at += CHUNK)
    out += String.fromCharCode.apply(null, units.subarray(at, Math.min(n, at + CHUNK)) as unknown as number[]);
  return out;
}
