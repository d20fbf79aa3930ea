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
  const bind = (value: Scalar, at: string) => param(operand, value, engine, at);
  switch (node.op) {
    case 'is null':
      return sql<SqlBool>`${expr} is null`;
    case 'is not null':
      return sql<SqlBool>`${expr} is not null`;
    case 'in':
    case 'not in': {
      const values = node.value.map((v, i) => bind(v, `${path}.value[${i}]`));
      return sql<SqlBool>`${expr} ${sql.raw(node.op)} (${sql.join(values)})`;
    }
    case 'between':
    case 'not between':
      return sql<SqlBool>`${expr} ${sql.raw(node.op)} ${bind(node.value[0], `${path}.value[0]`)} and ${bind(node.value[1], `${path}.value[1]`)}`;
    case 'like':
    case 'not like': {
      if (operand.type !== 'text' && operand.type !== 'unknown') {
        throw new ToolError('type_mismatch', `${path}: like needs a text column; ${node.column} is ${operand.type}`);
      }
      // One escape character on every engine; '[' is a wildcard on SQL Server, so it is escaped too.
      return sql<SqlBool>`${expr} ${sql.raw(node.op)} ${likePattern(node.value)} escape '!'`;
    }
    default:
      return sql<SqlBool>`${expr} ${sql.raw(COMPARISON_SQL[node.op]!)} ${bind(node.value, `${path}.value`)}`;
  }
}

/** A value `compileFilter` binds: the type it is checked against, where it sits (for errors), and whether it is a like pattern. */
export interface FilterSlot {
  value: Scalar;
  type: PortableType;
  at: string;
  pattern: boolean;
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
  const slot = (value: Scalar, at: string, pattern = false) => out.push({ value, type, at, pattern });
  switch (node.op) {
    case 'is null':
    case 'is not null':
      break;
    case 'in':
    case 'not in':
      for (const [i, v] of node.value.entries()) slot(v, `${path}.value[${i}]`);
      break;
    case 'between':
    case 'not between':
      slot(node.value[0], `${path}.value[0]`);
      slot(node.value[1], `${path}.value[1]`);
      break;
    case 'like':
    case 'not like':
      slot(node.value, `${path}.value`, true);
      break;
    default:
      slot(node.value, `${path}.value`);
  }
  return out;
}

/** The parameter `compileFilter` binds for `value` in `slot`, with the same checks and errors. */
export function bindSlot(slot: FilterSlot, value: Scalar, engine: Engine): unknown {
  return slot.pattern ? likePattern(value as string) : param(slot, value, engine, slot.at);
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

function param(operand: Pick<Operand, 'type'>, value: Scalar, engine: Engine, at: string): unknown {
  if (value === null)
    throw new ToolError('invalid_filter', `${at}: null never compares equal in SQL; use is null / is not null`);
  return engine.encodeParam(operand.type, coerceValue(operand.type, value, at));
}

/** Our pattern syntax (`\` escapes `%`, `_` and itself) to SQL with `!` as the escape character. */
export function likePattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      out += next === '%' || next === '_' || next === '!' || next === '[' ? `!${next}` : next;
    } else if (c === '!' || c === '[') out += `!${c}`;
    else out += c;
  }
  return out;
}
