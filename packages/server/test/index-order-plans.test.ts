import type { PortableType, QueryInput } from '@mcp-db-bench/contract';
import { type Connection, ENGINES, type Engine } from '@mcp-db-bench/engines';
import { type PlanReading, testFactsOf } from '@mcp-db-bench/engines/testing';
import { freshDatabase, type LiveTarget, liveTargets } from '@mcp-db-bench/testing';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../src/catalog/build.js';
import type { Catalog } from '../src/catalog/types.js';
import { DEFAULT_LIMITS } from '../src/context.js';
import { planQuery } from '../src/tools/query.js';

/**
 * The order `query` gives without `order_by` (query/index-order.ts), planned by each real engine:
 * the five filtered shapes an agent sends, on an `orders` table of 6,000 rows shaped like the
 * benchmark dataset's (its two indexes, its statistics), read with and without that order through
 * the engine's own EXPLAIN. With it the plan reads no table whole that the unordered statement
 * does not, an index serves the filter whenever one can, and where an index's entries end with
 * the key (SQLite, InnoDB) there is no sort either; PostgreSQL sorts only rows its index read.
 *
 * SHOW_PLANS=1 prints every plan as a Markdown table (docs/performance.md shows one).
 */
const ROWS = 6000;
const STATUSES = ['delivered', 'delivered', 'shipped', 'delivered', 'cancelled', 'paid', 'pending', 'refunded'];

/** The shapes, and the order each gets: the index's columns after the equality, then the key. */
const SHAPES: { name: string; filter: string; order: string[]; indexed: boolean }[] = [
  {
    name: 'equality, then a column no index has',
    filter: "status = 'shipped' and total > 500",
    order: ['placed_at', 'id'],
    indexed: true,
  },
  { name: 'a foreign key', filter: 'customer_id = 42', order: ['id'], indexed: true },
  {
    name: 'equality, then a range the index takes',
    filter: "status = 'delivered' and placed_at >= '2024-01-01T00:00:00Z'",
    order: ['placed_at', 'id'],
    indexed: true,
  },
  {
    name: 'between on an index',
    filter: 'customer_id between 100 and 110',
    order: ['customer_id', 'id'],
    indexed: true,
  },
  { name: 'between on a column no index has', filter: 'total between 100 and 200', order: ['id'], indexed: false },
];

const COLUMNS: [string, 'int' | 'text20' | 'money' | 'ts', PortableType][] = [
  ['id', 'int', 'integer'],
  ['customer_id', 'int', 'integer'],
  ['status', 'text20', 'text'],
  ['total', 'money', 'decimal'],
  ['placed_at', 'ts', 'timestamp'],
];

/** Deterministic rows: customers 1..2000, the dataset's mix of statuses, totals to 10,000, five years of orders. */
function orderRow(i: number): (string | number)[] {
  const placed = Date.UTC(2021, 0, 1) + ((i * 104_729) % (5 * 365 * 86_400)) * 1000;
  return [
    i,
    1 + ((i * 7919) % 2000),
    STATUSES[(i * 31) % STATUSES.length]!,
    (((i * 7907) % 1_000_000) / 100).toFixed(2),
    new Date(placed).toISOString(),
  ];
}

async function loadOrders(engine: Engine, connection: Connection): Promise<void> {
  const { db } = connection;
  const types = testFactsOf(engine).shopTypes;
  const columns = COLUMNS.map(([name, type]) => sql`${sql.id(name)} ${sql.raw(types[type])} not null`);
  await sql`create table orders (${sql.join(columns)}, primary key (id))`.execute(db);
  for (let from = 1; from <= ROWS; from += 500) {
    const rows = Array.from({ length: 500 }, (_, k) => orderRow(from + k));
    const values = rows.map((row) =>
      Object.fromEntries(COLUMNS.map(([name, , type], c) => [name, engine.encodeParam(type, row[c]!)])),
    );
    await db.insertInto('orders').values(values).execute();
  }
  await sql`create index ix_orders_customer_id on orders (customer_id)`.execute(db);
  await sql`create index ix_orders_status_placed_at on orders (status, placed_at)`.execute(db);
  for (const statement of engine.bulk.analyze('orders')) await sql.raw(statement).execute(db);
}

/** The same statement without its order by. */
function unordered(query: CompiledQuery): CompiledQuery {
  const text = query.sql.replace(/ order by .+? limit /, ' limit ');
  if (text === query.sql) throw new Error(`no order by ... limit in ${query.sql}`);
  return CompiledQuery.raw(text, [...query.parameters]);
}

const planned = ENGINES.filter((e) => testFactsOf(e).plan);
const targets = liveTargets().filter((t) => planned.some((e) => e.name === t.engine));
const shown: string[] = [];

describe.each(targets)('$engine: the five filtered shapes, planned', (target: LiveTarget) => {
  const engine = planned.find((e) => e.name === target.engine)!;
  const plan = testFactsOf(engine).plan!;
  let connection: Connection;
  let catalog: Catalog;

  beforeAll(async () => {
    const url = await freshDatabase(target, 'bench_index_plans');
    connection = await engine.connect(url, { poolSize: 1, create: true, inProcess: true });
    await loadOrders(engine, connection);
    catalog = buildCatalog(await engine.introspect(connection.db), new Map());
  }, 120_000);
  afterAll(async () => {
    await connection?.close();
  });

  it.each(SHAPES)('$name: $filter', async (shape) => {
    const args = (order_by?: string[]): QueryInput => ({ table: 'orders', filter: shape.filter, limit: 25, order_by });
    const ours = planQuery(args(), catalog, engine, connection.db, DEFAULT_LIMITS).compiled;
    const byKey = planQuery(args(['id']), catalog, engine, connection.db, DEFAULT_LIMITS).compiled;
    const order = new RegExp(`order by ${shape.order.map((c) => `.${c}. asc`).join(', ')} limit`);
    expect(ours.sql).toMatch(order);
    const [mine, none, key] = await Promise.all([ours, unordered(ours), byKey].map((q) => plan.read(connection.db, q)));
    show(target.engine, shape.filter, mine!, none!, key!);
    const why = `with our order:\n${mine!.text}\nwithout an order:\n${none!.text}`;
    for (const table of mine!.scans) expect(none!.scans, why).toContain(table);
    if (shape.indexed) expect(mine!.scans, why).toEqual([]);
    if (plan.keyEndsIndex) expect(mine!.sorts, why).toBeLessThanOrEqual(none!.sorts);
  });
});

function show(engine: string, filter: string, ours: PlanReading, none: PlanReading, key: PlanReading): void {
  const cell = (p: PlanReading) => p.text.replaceAll('\n', ' → ').replaceAll('|', '\\|');
  shown.push(`| ${engine} | \`${filter}\` | ${cell(none)} | ${cell(ours)} | ${cell(key)} |`);
}

afterAll(() => {
  if (process.env.SHOW_PLANS !== '1') return;
  const head =
    '| engine | filter | no order | our order (index, then key) | key order (before) |\n| --- | --- | --- | --- | --- |';
  process.stdout.write(`\n${head}\n${shown.join('\n')}\n`);
});
