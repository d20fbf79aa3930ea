import { isDeepStrictEqual } from 'node:util';
import {
  type FilterNode,
  type LexedFilter,
  lexFilter,
  type QueryInput,
  type QueryOutput,
  querySpec,
  type Scalar,
} from '@mcp-db-bench/contract';
import type { AnyDb, Comparison, Engine } from '@mcp-db-bench/engines';
import { CompiledQuery, type SqlBool, sql } from 'kysely';
import { checkStatementParameters } from '../bound-values.js';
import { memoPerCatalog } from '../catalog/answers.js';
import type { Catalog, Column, Table } from '../catalog/types.js';
import { bindSlot, type FilterSlot, filterParams, filterSlots } from '../filter/compile.js';
import { decodeCursor, encodeCursor, fingerprint, keysetAfter } from '../query/cursor.js';
import { indexOrder } from '../query/index-order.js';
import { resolveColumn, resolveColumns, resolveTable } from '../query/names.js';
import { type OrderKey, orderTerms, parseOrderTerm } from '../query/order.js';
import { comparisonsOf, readRows } from '../query/read.js';
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
  description:
    'Rows of one table, in the order of the index the filter uses, then the key, unless sorted. When truncated, pass next_cursor as cursor.',
  annotations: READ_ONLY,
  async run(args, ctx) {
    const plan = planQuery(args, await ctx.schema.get(), ctx.engine, ctx.db, ctx.limits);
    return plan.finish(await readRows(ctx, plan.compiled, plan.table, plan.comparisons));
  },
});

export interface QueryPlan {
  compiled: CompiledQuery;
  table: Table;
  /** the where clause's comparisons, for an engine's short-read path (see `readRows`) */
  comparisons(): readonly Comparison[] | undefined;
  finish(rows: Record<string, unknown>[]): QueryOutput;
}

/** What a query's arguments fix apart from its filter and cursor. */
interface Frame {
  table: Table;
  columns: Column[];
  keys: OrderKey[];
  /** the sort keys' columns: the cursor is made of them */
  keyColumns: Column[];
  limit: number;
}

/** A query of one filter template without a cursor: planned once, then bound to each call's literals. */
interface Template {
  frame: Frame;
  sql: string;
  slots: FilterSlot[];
  comparisons: readonly Comparison[] | undefined;
}

/** Per catalog and template; null when its calls are planned in full (the SQL text takes a value). */
const templates = memoPerCatalog<Template | null>(512);

/**
 * Builds the statement (without running it) and the function that shapes its rows. An
 * expression filter without a cursor is planned once per template (see `lexFilter`): later
 * calls only check and bind their literals, the same checks with the same errors.
 */
export function planQuery(args: QueryInput, catalog: Catalog, engine: Engine, db: AnyDb, limits: Limits): QueryPlan {
  // A template serves an expression filter, or none, without a cursor.
  const lexed = typeof args.filter === 'string' && args.cursor === undefined ? lexQuietly(args.filter) : undefined;
  if (args.cursor !== undefined || (args.filter !== undefined && lexed === undefined)) {
    const { frame, filter } = frameOf(args, catalog, limits, () => readFilter(args.filter));
    return planInFull(args, frame, filter, catalog, engine, db);
  }
  const literals = lexed?.literals ?? [];
  const limit = effectiveLimit(args.limit, limits);
  // the template fixes the filter's structure, and with it the order an index gives (see `frameOf`)
  const key = JSON.stringify([engine.name, args.table, args.columns, args.order_by, limit, lexed?.template]);
  let first: QueryPlan | undefined;
  const template = templates(catalog, key, () => {
    const { frame, filter } = frameOf(args, catalog, limits, () => lexed?.parse());
    first = planInFull(args, frame, filter, catalog, engine, db);
    return templateOf(first, frame, filter, literals, engine);
  });
  if (first) return first;
  if (template === null) {
    const { frame, filter } = frameOf(args, catalog, limits, () => lexed?.parse());
    return planInFull(args, frame, filter, catalog, engine, db);
  }
  const params = template.slots.map((slot, i) => bindSlot(slot, literals[i]!, engine));
  return {
    compiled: CompiledQuery.raw(template.sql, withLimit(params, template.frame.limit, engine)),
    table: template.frame.table,
    comparisons: () => template.comparisons,
    finish: finisher(template.frame, () => lexed?.parse()),
  };
}

/** The filter's tokens; undefined when it has none that lex, and its full plan reports why (after any table's error). */
function lexQuietly(filter: string): LexedFilter | undefined {
  try {
    return lexFilter(filter);
  } catch {
    return undefined;
  }
}

/**
 * `args` resolved against the catalog, with their errors, and the filter `filterOf` reads
 * (read after the table, columns and order, whose errors come first). Without `order_by`, the
 * rows come in the order of the index that serves the filter (`indexOrder`), then the key.
 */
function frameOf(
  args: QueryInput,
  catalog: Catalog,
  limits: Limits,
  filterOf: () => FilterNode | undefined,
): { frame: Frame; filter: FilterNode | undefined } {
  const table = resolveTable(catalog, args.table);
  const columns = resolveColumns(table, args.columns);
  const terms = args.order_by ?? [];
  const resolve = (name: string, where: string) => resolveColumn(table, name, where);
  const sorted = terms.length ? orderKeys(table.columns, table.primaryKey, terms, resolve) : undefined;
  const filter = filterOf();
  const keys = sorted ?? orderKeys(table.columns, table.primaryKey, [], resolve, indexOrder(table, filter));
  const keyColumns = keys.map((k) => table.column.get(k.name)!);
  return { frame: { table, columns, keys, keyColumns, limit: effectiveLimit(args.limit, limits) }, filter };
}

/**
 * The template of a plan just made from `filter`: when its statement binds exactly the filter's
 * literals, in their order, and then the limit. Otherwise (a text that takes a value) null.
 */
function templateOf(
  plan: QueryPlan,
  frame: Frame,
  filter: FilterNode | undefined,
  literals: readonly Scalar[],
  engine: Engine,
): Template | null {
  const slots = filter ? filterSlots(filter, columnTypes(frame.table)) : [];
  const params = withLimit(
    slots.map((slot) => bindSlot(slot, slot.value, engine)),
    frame.limit,
    engine,
  );
  const bindsLiterals = slots.length === literals.length && slots.every((slot, i) => slot.value === literals[i]);
  if (!bindsLiterals || !isDeepStrictEqual(plan.compiled.parameters, params)) return null;
  return { frame, sql: plan.compiled.sql, slots, comparisons: plan.comparisons() };
}

function withLimit(params: unknown[], limit: number, engine: Engine): unknown[] {
  if (engine.limitIn === 'parameter') params.push(limit + 1);
  return params;
}

/** A query planned from its arguments alone (a cursor, a JSON filter, or a template's first call). */
function planInFull(
  args: QueryInput,
  frame: Frame,
  filter: FilterNode | undefined,
  catalog: Catalog,
  engine: Engine,
  db: AnyDb,
): QueryPlan {
  const { table, columns, keys, keyColumns, limit } = frame;
  const after = args.cursor
    ? keysetAfter(
        keys,
        decodeCursor(
          args.cursor,
          fingerprint([table.name, keys, filter ?? null]),
          keyColumns.map((c) => c.type),
        ),
      )
    : undefined;
  // Sort keys the caller did not ask for are still read: the cursor is made of them.
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
    () => withLimit(where ? filterParams(where, columnTypes(table), engine) : [], limit, engine),
    () => {
      let q = selectFrom(db, table, read);
      const clause = where === null ? sql<SqlBool>`1 = 0` : whereClause([where], columnResolver(table), engine);
      if (clause) q = q.where(clause);
      for (const key of keys) for (const term of orderTerms(sql.id(key.name), key)) q = q.orderBy(term);
      return engine.limit(q, limit + 1).compile();
    },
  );
  return {
    compiled: checkStatementParameters(compiled, engine),
    table,
    comparisons: () => (where === null ? undefined : comparisonsOf(where, table)),
    finish: finisher(frame, () => filter),
  };
}

/** The function that shapes a page of rows; `filter` (parsed only when a cursor is returned) goes into its fingerprint. */
function finisher(frame: Frame, filter: () => FilterNode | undefined): QueryPlan['finish'] {
  const { table, columns, keys, keyColumns, limit } = frame;
  return (raw) => {
    const truncated = raw.length > limit;
    const page = truncated ? raw.slice(0, limit) : raw;
    const last = page.at(-1);
    const next =
      truncated && last
        ? encodeCursor(
            fingerprint([table.name, keys, filter() ?? null]),
            keyColumns.map((c) => decodeRow([c], last)[c.name]!),
          )
        : null;
    return {
      columns: columns.map((c) => c.name),
      rows: page.map((r) => decodeRow(columns, r)),
      truncated,
      next_cursor: next,
    };
  };
}

/**
 * The caller's sort keys (or, without any, `implicit`), then the primary key as a
 * tie-breaker, so every order is total (and a keyset cursor exact). Key-less tables and views
 * fall back to every sortable column.
 */
export function orderKeys(
  all: readonly Column[],
  primaryKey: readonly string[],
  terms: readonly string[],
  resolve: (name: string, where: string) => Column,
  implicit: readonly OrderKey[] = [],
): OrderKey[] {
  const keys: OrderKey[] = [];
  terms.forEach((term, i) => {
    const where = `order_by[${i}]`;
    const { name, direction } = parseOrderTerm(term, where);
    const column = requireOrderable(resolve(name, where), where);
    if (!keys.some((k) => k.name === column.name))
      keys.push({ name: column.name, direction, nullable: column.nullable });
  });
  if (terms.length === 0) keys.push(...implicit);
  const tieBreak = primaryKey.length ? primaryKey.map((n) => all.find((c) => c.name === n)!) : all.filter(orderable);
  for (const c of tieBreak) {
    if (!keys.some((k) => k.name === c.name)) keys.push({ name: c.name, direction: 'asc', nullable: c.nullable });
  }
  return keys;
}
