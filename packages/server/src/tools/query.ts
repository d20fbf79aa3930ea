import { type FilterNode, type QueryInput, type QueryOutput, querySpec } from '@mcp-db-bench/contract';
import type { AnyDb, EngineProfile } from '@mcp-db-bench/engines';
import { type CompiledQuery, type SqlBool, sql } from 'kysely';
import type { Catalog, Column, Table } from '../catalog/types.js';
import { filterParams } from '../filter/compile.js';
import { decodeCursor, encodeCursor, fingerprint, keysetAfter } from '../query/cursor.js';
import { resolveColumn, resolveColumns, resolveTable } from '../query/names.js';
import { type OrderKey, orderTerms, parseOrderTerm } from '../query/order.js';
import { readRows } from '../query/read.js';
import {
  columnResolver,
  columnTypes,
  conjunction,
  decodeRow,
  effectiveLimit,
  orderable,
  readFilter,
  requireOrderable,
  selectFrom,
  whereClause,
} from '../query/select.js';
import { compileShape, filterShape } from '../query/shapes.js';
import { defineTool, type Limits, READ_ONLY } from './tool.js';

export const query = defineTool(querySpec, {
  title: 'Query rows',
  description: 'Rows of one table, in primary key order unless sorted. When truncated, pass next_cursor as cursor.',
  annotations: READ_ONLY,
  async run(args, ctx) {
    const plan = planQuery(args, await ctx.schema.get(), ctx.engine, ctx.db, ctx.limits);
    return plan.finish(await readRows(ctx, plan.compiled, plan.table, plan.where));
  },
});

export interface QueryPlan {
  compiled: CompiledQuery;
  table: Table;
  /** the where clause as a filter; null when it is not one (no row can follow the cursor) */
  where: FilterNode | undefined | null;
  finish(rows: Record<string, unknown>[]): QueryOutput;
}

/** Builds the statement (without running it; compiled once per shape) and the function that shapes its rows. */
export function planQuery(
  args: QueryInput,
  catalog: Catalog,
  engine: EngineProfile,
  db: AnyDb,
  limits: Limits,
): QueryPlan {
  const table = resolveTable(catalog, args.table);
  const columns = resolveColumns(table, args.columns);
  const keys = orderKeys(table.columns, table.primaryKey, args.order_by ?? [], (n, w) => resolveColumn(table, n, w));
  const filter = readFilter(args.filter);
  // only a cursor given or one to return needs it: most calls neither take nor give one
  const fp = () => fingerprint([table.name, keys, filter ?? null]);
  // Sort keys the caller did not ask for are still read: the cursor is made of them.
  const keyColumns = keys.map((k) => table.column.get(k.name)!);
  const after = args.cursor
    ? keysetAfter(
        keys,
        decodeCursor(
          args.cursor,
          fp(),
          keyColumns.map((c) => c.type),
        ),
      )
    : undefined;
  const limit = effectiveLimit(args.limit, limits);
  const read = [...columns, ...keyColumns.filter((k) => !columns.includes(k))];
  // No row can follow the cursor: ask for none rather than for everything.
  const where = after === null ? null : conjunction([filter, after]);

  const shape = JSON.stringify([
    'query',
    engine.name,
    table.name,
    read.map((c) => c.name),
    keys,
    filterShape(where),
    limit,
  ]);
  const compiled = compileShape(
    catalog,
    shape,
    () => [
      ...(where ? filterParams(where, columnTypes(table), engine) : []),
      ...(engine.limitIn === 'parameter' ? [limit + 1] : []),
    ],
    () => {
      let q = selectFrom(db, table, read);
      const clause = where === null ? sql<SqlBool>`1 = 0` : whereClause([where], columnResolver(table), engine);
      if (clause) q = q.where(clause);
      for (const key of keys) for (const term of orderTerms(sql.id(key.name), key)) q = q.orderBy(term);
      return engine.limit(q, limit + 1).compile();
    },
  );

  return {
    compiled,
    table,
    where,
    finish(raw) {
      const truncated = raw.length > limit;
      const page = truncated ? raw.slice(0, limit) : raw;
      const last = page.at(-1);
      const next =
        truncated && last
          ? encodeCursor(
              fp(),
              keyColumns.map((c) => decodeRow([c], last)[c.name]!),
            )
          : null;
      return {
        columns: columns.map((c) => c.name),
        rows: page.map((r) => decodeRow(columns, r)),
        truncated,
        next_cursor: next,
      };
    },
  };
}

/**
 * The caller's sort keys, then the primary key as a tie-breaker, so every order is total
 * (and a keyset cursor exact). Key-less tables and views fall back to every sortable column.
 */
export function orderKeys(
  all: readonly Column[],
  primaryKey: readonly string[],
  terms: readonly string[],
  resolve: (name: string, where: string) => Column,
): OrderKey[] {
  const keys: OrderKey[] = [];
  terms.forEach((term, i) => {
    const where = `order_by[${i}]`;
    const { name, direction } = parseOrderTerm(term, where);
    const column = requireOrderable(resolve(name, where), where);
    if (!keys.some((k) => k.name === column.name))
      keys.push({ name: column.name, direction, nullable: column.nullable });
  });
  const tieBreak = primaryKey.length ? primaryKey.map((n) => all.find((c) => c.name === n)!) : all.filter(orderable);
  for (const c of tieBreak) {
    if (!keys.some((k) => k.name === c.name)) keys.push({ name: c.name, direction: 'asc', nullable: c.nullable });
  }
  return keys;
}
