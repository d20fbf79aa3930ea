import type { FilterNode, PortableType, Row } from '@mcp-db-bench/contract';
import { parseFilter, ToolError } from '@mcp-db-bench/contract';
import type { AnyDb, AnySelect, Engine } from '@mcp-db-bench/engines';
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Column, Table } from '../catalog/types.js';
import { compileFilter, type OperandResolver } from '../filter/compile.js';
import { decodeValue } from '../output/decode.js';
import { resolveColumn } from './names.js';

/**
 * `select ... from "table"`, naming the table and columns as identifiers (never parsing
 * them as `schema.table` or `x as y`, which a discovered name may contain).
 */
export function selectFrom(db: AnyDb, table: Table, columns: readonly Column[]): AnySelect {
  return db.selectFrom(sql.id(table.name).as('t')).select(columns.map((c) => sql.id(c.name).as(c.name)));
}

/** A column name to its type, resolved as `columnResolver` does: what `filterParams` needs. */
export function columnTypes(table: Table): (name: string, path: string) => PortableType {
  return (name, path) => resolveColumn(table, name, path).type;
}

export function columnResolver(table: Table): OperandResolver {
  return (name, path) => {
    const column = resolveColumn(table, name, path);
    return { expr: sql.id(column.name), type: column.type, scale: column.scale };
  };
}

/** The caller's filter (either form) in argument `argument`, validated; undefined when absent. */
export function readFilter(
  filter: string | Record<string, unknown> | undefined,
  argument = 'filter',
): FilterNode | undefined {
  if (filter === undefined) return undefined;
  return parseFilter(filter, argument);
}

/** The conjunction of `nodes` as one filter: the node itself when only one is present. */
export function conjunction(nodes: readonly (FilterNode | undefined)[]): FilterNode | undefined {
  const present = nodes.filter((n): n is FilterNode => n !== undefined);
  return present.length <= 1 ? present[0] : { and: present };
}

/** The conjunction of `nodes` as SQL; `argument` names them in errors (`filter`, `having`). */
export function whereClause(
  nodes: (FilterNode | undefined)[],
  resolve: OperandResolver,
  engine: Engine,
  argument = 'filter',
): RawBuilder<SqlBool> | undefined {
  const where = conjunction(nodes);
  return where && compileFilter(where, resolve, engine, argument);
}

/** Decodes the named columns of a driver row, in that order. */
export function decodeRow(columns: readonly Column[], raw: Record<string, unknown>): Row {
  const row: Row = {};
  for (const c of columns) row[c.name] = decodeValue(c, raw[c.name]);
  return row;
}

/** The caller's limit, defaulted and capped; the cap is reported through `truncated`. */
export function effectiveLimit(
  requested: number | undefined,
  limits: { defaultRows: number; maxRows: number },
): number {
  return Math.min(requested ?? limits.defaultRows, limits.maxRows);
}

/** Columns whose values cannot order rows portably (no comparison on every engine). */
export function orderable(c: Column): boolean {
  return c.type !== 'json' && c.type !== 'binary' && c.type !== 'unknown';
}

export function requireOrderable(c: Column, where: string): Column {
  if (!orderable(c)) throw new ToolError('invalid_argument', `${where}: cannot sort by ${c.name} (a ${c.type} column)`);
  return c;
}
