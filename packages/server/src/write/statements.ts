import type { FilterNode, Row, Scalar, SetValue } from '@mcp-db-bench/contract';
import { ToolError } from '@mcp-db-bench/contract';
import { type AnyDb, type Engine, insertStatement } from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import type { Catalog, Table } from '../catalog/types.js';
import { resolveTable } from '../query/names.js';
import { columnResolver, decodeRow, readFilter, whereClause } from '../query/select.js';
import { assignments, insertGroups } from './values.js';

/** What every write step needs: where to run, and how to read names and values. */
export interface WriteScope {
  db: AnyDb;
  engine: Engine;
  catalog: Catalog;
  /** rows an update or delete may change when the call sets no max_rows */
  maxRows: number;
}

function writableTable(catalog: Catalog, name: string): Table {
  const table = resolveTable(catalog, name);
  if (table.kind === 'view')
    throw new ToolError('invalid_argument', `${table.name} is a view; write to its tables instead`);
  return table;
}

/** Inserts rows and returns each one's primary key (generated values included), portable. */
export async function insertRows(
  scope: WriteScope,
  tableName: string,
  rows: readonly Record<string, Scalar>[],
  path = 'rows',
) {
  const { db, engine } = scope;
  const table = writableTable(scope.catalog, tableName);
  const key = table.primaryKey.map((name) => table.column.get(name)!);
  const keys: Row[] = [];
  for (const group of insertGroups(table, rows, engine, path)) {
    const names = group.columns.map((c) => c.name);
    // Stay under the engine's parameter limit in each statement.
    const perStatement = Math.max(1, Math.floor(engine.maxParameters / names.length));
    for (let i = 0; i < group.rows.length; i += perStatement) {
      const chunk = group.rows.slice(i, i + perStatement);
      if (key.length === 0) {
        await insertStatement(table.name, names, chunk).execute(db);
        for (const _ of chunk) keys.push({});
        continue;
      }
      const raw = await engine.insertReturningKeys(db, table.name, names, chunk, table.primaryKey);
      for (const r of raw) keys.push(decodeRow(key, r));
    }
  }
  return { inserted: rows.length, keys };
}

/**
 * The filter a write must have: a write that names no condition would touch every row, which
 * an agent almost never means. (A real condition that matches everything is still capped.)
 */
function requiredFilter(filter: string | Record<string, unknown>): FilterNode {
  const empty = typeof filter === 'string' ? filter.trim() === '' : Object.keys(filter).length === 0;
  if (empty)
    throw new ToolError(
      'invalid_argument',
      'filter: a write needs a filter naming the rows to change; it never touches every row by default',
    );
  return readFilter(filter)!;
}

/** The number of rows a statement changed (matched, for MySQL: mysql2 sets FOUND_ROWS). */
function changed(result: { numAffectedRows?: bigint }): number {
  return Number(result.numAffectedRows ?? 0n);
}

/** Refuses (the caller's transaction then rolls back) when more rows changed than allowed. */
function checkCap(count: number, cap: number, verb: string, table: string): void {
  if (count > cap) {
    throw new ToolError(
      'limit_exceeded',
      `the filter matches ${count} rows of ${table}, more than max_rows (${cap}); nothing was ${verb}. Narrow the filter or raise max_rows.`,
    );
  }
}

export async function updateRows(
  scope: WriteScope,
  tableName: string,
  set: Record<string, SetValue>,
  filter: string | Record<string, unknown>,
  maxRows: number | undefined,
) {
  const table = writableTable(scope.catalog, tableName);
  const where = whereClause([requiredFilter(filter)], columnResolver(table), scope.engine)!;
  const result =
    await sql`update ${sql.id(table.name)} set ${assignments(table, set, scope.engine)} where ${where}`.execute(
      scope.db,
    );
  const updated = changed(result);
  checkCap(updated, maxRows ?? scope.maxRows, 'updated', table.name);
  return { updated };
}

export async function deleteRows(
  scope: WriteScope,
  tableName: string,
  filter: string | Record<string, unknown>,
  maxRows: number | undefined,
) {
  const table = writableTable(scope.catalog, tableName);
  const where = whereClause([requiredFilter(filter)], columnResolver(table), scope.engine)!;
  const deleted = changed(await sql`delete from ${sql.id(table.name)} where ${where}`.execute(scope.db));
  checkCap(deleted, maxRows ?? scope.maxRows, 'deleted', table.name);
  return { deleted };
}
