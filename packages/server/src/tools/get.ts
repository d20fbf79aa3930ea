import { type FilterNode, type GetInput, type GetOutput, TOOL_NAMES, ToolError, getInput, getOutput } from '@mcp-db-bench/contract';
import { CompiledQuery } from 'kysely';
import { memoPerCatalog } from '../catalog/answers.js';
import type { Catalog, Table } from '../catalog/types.js';
import type { AnyDb, EngineProfile } from '../databases/engine.js';
import { coerceValue } from '../filter/coerce.js';
import { resolveColumns, resolveTable } from '../query/names.js';
import { columnResolver, decodeRow, selectFrom, whereClause } from '../query/select.js';
import { READ_ONLY, defineTool } from './tool.js';

export const get = defineTool({
  name: TOOL_NAMES.get,
  title: 'Get a row by primary key',
  description: 'Reads one row by its primary key: a value, or {"column": value} for each column of a composite key.',
  input: getInput,
  output: getOutput,
  annotations: READ_ONLY,
  async run(args, ctx) {
    const db = ctx.seekDb ?? ctx.db;
    const plan = planGet(args, await ctx.schema.get(), ctx.engine, db);
    const { rows } = await db.executeQuery<Record<string, unknown>>(plan.compiled);
    return plan.finish(rows);
  },
});

/**
 * The SQL text of a `get`, per catalog and call shape (engine, table and columns): only the key's
 * values change between calls, and they are parameters, so kysely builds and compiles each shape
 * once. Bounded, since callers choose the column lists.
 */
const sqlOfShape = memoPerCatalog<string>(256);

export function planGet(args: GetInput, catalog: Catalog, engine: EngineProfile, db: AnyDb) {
  const table = resolveTable(catalog, args.table);
  const columns = resolveColumns(table, args.columns);
  const match = keyFilter(table, args.key);
  // A shape's first call is kysely's own compile; later ones bind their key to its text.
  let fresh: CompiledQuery | undefined;
  const shape = `${engine.name}\0${table.name}\0${columns.map((c) => c.name).join('\0')}`;
  const text = sqlOfShape(catalog, shape, () => {
    fresh = selectFrom(db, table, columns).where(whereClause([match], columnResolver(table), engine)!).compile();
    return fresh.sql;
  });
  return {
    compiled: fresh ?? CompiledQuery.raw(text, keyParameters(table, match, engine)),
    finish(raw: Record<string, unknown>[]): GetOutput {
      const first = raw[0];
      return first ? { found: true, row: decodeRow(columns, first) } : { found: false, row: null };
    },
  };
}

/** The parameters `whereClause` binds for a key filter: each key column's value, in key order. */
function keyParameters(table: Table, match: FilterNode, engine: EngineProfile): unknown[] {
  const parts = 'and' in match ? match.and : [match];
  return parts.map((part) => {
    const { column, value } = part as { column: string; value: string | number | boolean };
    return engine.encodeParam(table.column.get(column)!.type, value);
  });
}

/** `key` as an equality filter on every primary key column, checked against the key's shape. */
export function keyFilter(table: Table, key: GetInput['key']): FilterNode {
  const pk = table.primaryKey;
  if (pk.length === 0) {
    throw new ToolError('invalid_argument', `${table.name} has no primary key; use query with a filter instead`);
  }
  const shape = pk.length === 1 ? `a value for ${pk[0]}` : `{${pk.map((c) => `"${c}": value`).join(', ')}}`;
  let values: Record<string, unknown>;
  if (key !== null && typeof key === 'object') values = key;
  else if (pk.length === 1) values = { [pk[0]!]: key };
  else throw new ToolError('invalid_argument', `key: ${table.name} has a composite primary key; pass ${shape}`);

  const given = Object.keys(values);
  const extra = given.filter((k) => !pk.includes(k));
  const missing = pk.filter((k) => !(k in values));
  if (extra.length || missing.length) {
    throw new ToolError('invalid_argument', `key: the primary key of ${table.name} is (${pk.join(', ')}); pass ${shape}`);
  }
  const parts: FilterNode[] = pk.map((column) => {
    const value = values[column] as GetInput['key'];
    const where = pk.length === 1 && !(key !== null && typeof key === 'object') ? 'key' : `key.${column}`;
    if (value === null) throw new ToolError('invalid_argument', `${where}: a primary key value cannot be null`);
    // Checked here so a mistake names the key, not the filter built from it.
    return { column, op: '=', value: coerceValue(table.column.get(column)!.type, value as string | number | boolean, where) };
  });
  return parts.length === 1 ? parts[0]! : { and: parts };
}
