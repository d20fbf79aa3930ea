import type { FilterNode, PortableType, Scalar } from '@mcp-db-bench/contract';
import { ToolError } from '@mcp-db-bench/contract';
import type { EngineProfile } from '@mcp-db-bench/engines';
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
  engine: EngineProfile,
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

/**
 * The parameters `compileFilter` binds for `node`, in the order its SQL binds them, and with the
 * same checks and errors: what a later call of an already compiled shape binds (query/shapes.ts).
 * `typeOf` resolves a column name as `compileFilter`'s resolver does, to its type alone.
 */
export function filterParams(
  node: FilterNode,
  typeOf: (name: string, path: string) => PortableType,
  engine: EngineProfile,
  path = 'filter',
  out: unknown[] = [],
): unknown[] {
  if ('and' in node || 'or' in node) {
    const [word, children] = 'and' in node ? ['and', node.and] : ['or', node.or];
    for (const [i, child] of children.entries()) filterParams(child, typeOf, engine, `${path}.${word}[${i}]`, out);
    return out;
  }
  if ('not' in node) return filterParams(node.not, typeOf, engine, `${path}.not`, out);
  const operand = { type: typeOf(node.column, `${path}.column`) };
  switch (node.op) {
    case 'is null':
    case 'is not null':
      break;
    case 'in':
    case 'not in':
      for (const [i, v] of node.value.entries()) out.push(param(operand, v, engine, `${path}.value[${i}]`));
      break;
    case 'between':
    case 'not between':
      out.push(
        param(operand, node.value[0], engine, `${path}.value[0]`),
        param(operand, node.value[1], engine, `${path}.value[1]`),
      );
      break;
    case 'like':
    case 'not like':
      out.push(likePattern(node.value));
      break;
    default:
      out.push(param(operand, node.value, engine, `${path}.value`));
  }
  return out;
}

function param(operand: Pick<Operand, 'type'>, value: Scalar, engine: EngineProfile, at: string): unknown {
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
