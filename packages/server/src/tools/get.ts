import { type FilterNode, type GetInput, type GetOutput, getSpec, ToolError } from '@mcp-db-bench/contract';
import type { AnyDb, Engine } from '@mcp-db-bench/engines';
import type { Catalog, Table } from '../catalog/types.js';
import { coerceValue } from '../filter/coerce.js';
import { filterParams } from '../filter/compile.js';
import { resolveColumns, resolveTable } from '../query/names.js';
import { comparisonsOf, readRows } from '../query/read.js';
import { columnResolver, columnTypes, decodeRow, selectFrom, whereClause } from '../query/select.js';
import { compileShape } from '../query/shapes.js';
import { defineTool, READ_ONLY } from './tool.js';

export const get = defineTool(getSpec, {
  title: 'Get a row by primary key',
  description: 'One row by its primary key.',
  annotations: READ_ONLY,
  async run(args, ctx) {
    const plan = planGet(args, await ctx.schema.get(), ctx.engine, ctx.db);
    return plan.finish(await readRows(ctx, plan.compiled, plan.table, plan.comparisons));
  },
});

/** The statement of a `get` (compiled once per shape: engine, table and columns) and the function that shapes its row. */
export function planGet(args: GetInput, catalog: Catalog, engine: Engine, db: AnyDb) {
  const table = resolveTable(catalog, args.table);
  const columns = resolveColumns(table, args.columns);
  const where = keyFilter(table, args.key);
  const shape = JSON.stringify(['get', engine.name, table.name, columns.map((c) => c.name)]);
  const compiled = compileShape(
    catalog,
    shape,
    () => filterParams(where, columnTypes(table), engine),
    () =>
      selectFrom(db, table, columns)
        .where(whereClause([where], columnResolver(table), engine)!)
        .compile(),
  );
  return {
    table,
    compiled,
    comparisons: () => comparisonsOf(where, table),
    finish(raw: Record<string, unknown>[]): GetOutput {
      const first = raw[0];
      return first ? { found: true, row: decodeRow(columns, first) } : { found: false, row: null };
    },
  };
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
    throw new ToolError(
      'invalid_argument',
      `key: the primary key of ${table.name} is (${pk.join(', ')}); pass ${shape}`,
    );
  }
  const parts: FilterNode[] = pk.map((column) => {
    const value = values[column] as GetInput['key'];
    const where = pk.length === 1 && !(key !== null && typeof key === 'object') ? 'key' : `key.${column}`;
    if (value === null) throw new ToolError('invalid_argument', `${where}: a primary key value cannot be null`);
    // Checked here so a mistake names the key, not the filter built from it.
    return {
      column,
      op: '=',
      value: coerceValue(table.column.get(column)!.type, value as string | number | boolean, where),
    };
  });
  return parts.length === 1 ? parts[0]! : { and: parts };
}
