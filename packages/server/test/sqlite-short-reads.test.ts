import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GetInput, QueryInput } from '@mcp-db-bench/contract';
import { type Connection, type StatementObserver, sqlite } from '@mcp-db-bench/engines';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../src/catalog/build.js';
import type { Catalog } from '../src/catalog/types.js';
import { DEFAULT_LIMITS } from '../src/context.js';
import { readRows } from '../src/query/read.js';
import { planGet } from '../src/tools/get.js';
import { planQuery } from '../src/tools/query.js';

/**
 * SQLite reads that SQLite's own plan proves short run on the main thread, and so do the others
 * of a table while they visit no more rows than a budget; past it, and from views, they go to the
 * worker threads. These tests run the read tools' own statements on a served connection,
 * judged on real plans of a real database, and tell where each ran by the waits for a pooled
 * connection (the connection's observer: a read on the main thread waits for none). How the
 * engine judges, pins, batches and gives way to locks: the engines' sqlite-short-reads.test.ts.
 */
let dir = '';
let file = '';
let connection: Connection;
let catalog: Catalog;
/** the waits for a worker thread's connection so far */
let acquired = 0;
const observer: StatementObserver = {
  statement: () => () => {},
  acquire: () => {
    acquired++;
    return () => {};
  },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-short-'));
  file = join(dir, 'short.db');
  const db = new Database(file);
  db.exec(`
    create table t (id integer primary key, v text not null);
    insert into t values (1, 'one'), (2, 'two');
    create table child (id integer primary key, parent_id int not null, kind text not null, n int);
    create index ix_child_parent on child (parent_id);
    create table pair (a int, b int, c text, primary key (a, b));
    create table wr (x text, y int, z int, primary key (x, y)) without rowid;
    create view child_x as select * from child where kind = 'x';`);
  const add = db.prepare('insert into child values (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 2000; i++) add.run(i, i % 50, i % 3 ? 'x' : 'y', (i * 7919) % 1000);
    db.prepare("insert into pair values (1, 2, 'p'), (1, 3, 'q')").run();
    db.prepare("insert into wr values ('a', 1, 10), ('a', 2, 20)").run();
  })();
  db.close();
  connection = await sqlite.connect(`sqlite:${file}`, { poolSize: 2, readOnly: false, observer });
  catalog = buildCatalog(await sqlite.introspect(connection.db), new Map());
});
afterAll(async () => {
  await connection?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The schema version is looked at once a second: wait until it will be again. */
const pastSchemaCheck = () => new Promise((resolve) => setTimeout(resolve, 1100));

/** Runs a tool's statement as the tool does; says where it ran and checks the rows against the pool's. */
async function route(tool: 'get' | 'query', args: GetInput | QueryInput): Promise<'main thread' | 'worker'> {
  const plan =
    tool === 'get'
      ? planGet(args as GetInput, catalog, sqlite, connection.db)
      : planQuery(args as QueryInput, catalog, sqlite, connection.db, DEFAULT_LIMITS);
  const before = acquired;
  const rows = await readRows(connection, plan.compiled, plan.table, plan.comparisons);
  const where = acquired === before ? 'main thread' : 'worker';
  expect(rows).toEqual((await connection.db.executeQuery(plan.compiled)).rows);
  return where;
}

describe('proven short: on the main thread', () => {
  it('a served SQLite connection has a short-read path', () => {
    expect(connection.shortReads).toBeDefined();
  });

  it.each<['get' | 'query', GetInput | QueryInput]>([
    ['get', { table: 't', key: 1 }],
    ['get', { table: 't', key: 99 }],
    ['get', { table: 'pair', key: { a: 1, b: 3 } }],
    ['get', { table: 'wr', key: { x: 'a', y: 2 } }],
    ['query', { table: 'child', filter: 'parent_id = 3', limit: 20 }],
    ['query', { table: 'child', filter: 'parent_id = 3 and id > 500', limit: 5 }],
    ['query', { table: 'child', filter: 'id > 100 and id <= 200' }],
    ['query', { table: 't' }],
    ['query', { table: 'pair', filter: 'a = 1' }],
    // without order_by, a range on an index comes in that index's order: no sort
    ['query', { table: 'child', filter: 'parent_id >= 3', limit: 10 }],
    ['query', { table: 'child', filter: 'parent_id between 3 and 5', limit: 10 }],
  ])('%s %o', async (tool, args) => {
    expect(await route(tool, args)).toBe('main thread');
  });

  it('follows a cursor on the main thread', async () => {
    const args: QueryInput = { table: 'child', filter: 'parent_id = 7', limit: 10 };
    const plan = planQuery(args, catalog, sqlite, connection.db, DEFAULT_LIMITS);
    const page = plan.finish(await readRows(connection, plan.compiled, plan.table, plan.comparisons));
    expect(page.truncated).toBe(true);
    expect(await route('query', { ...args, cursor: page.next_cursor! })).toBe('main thread');
  });
});

describe('not proven short, within the budget of row visits: on the main thread', () => {
  it.each<[string, QueryInput]>([
    ['a column without an index (a scan that stops at the limit)', { table: 'child', filter: "kind = 'x'" }],
    ['a condition the index does not take', { table: 'child', filter: "parent_id = 3 and kind = 'x'" }],
    ['a sort the index does not give', { table: 'child', filter: 'parent_id = 3', order_by: ['n'] }],
    ['a sort of the whole table', { table: 't', order_by: ['v'] }],
    ['or', { table: 'child', filter: 'parent_id = 3 or parent_id = 4' }],
    ['in', { table: 'child', filter: 'parent_id in (3, 4)' }],
    ['not', { table: 'child', filter: 'not (parent_id = 3)' }],
    ['one range bound twice', { table: 'child', filter: 'id > 3 and id > 4' }],
  ])('%s', async (_, args) => {
    expect(await route('query', args)).toBe('main thread');
  });
});

describe('on a worker thread', () => {
  it.each<[string, QueryInput]>([
    // 2,000 rows visited for none kept: past the budget (1,000), the pool runs it
    ['a scan past the budget', { table: 'child', filter: 'n > 5000' }],
    ['is null, past the budget', { table: 'child', filter: 'n is null' }],
    ['a sort of more rows than the budget', { table: 'child', order_by: ['n'], limit: 5 }],
    [
      'a view, whose own conditions and work its statement does not show',
      { table: 'child_x', filter: 'parent_id = 3' },
    ],
  ])('%s', async (_, args) => {
    expect(await route('query', args)).toBe('worker');
  });
});

describe('a plan is judged again when the schema changes', () => {
  it('takes a new index into account', async () => {
    // no row is of kind 'z': without an index every row is visited, past the budget
    const args: QueryInput = { table: 'child', filter: "kind = 'z'", limit: 3 };
    expect(await route('query', args)).toBe('worker');
    const writer = new Database(file);
    writer.exec('create index ix_child_kind on child (kind)');
    writer.close();
    catalog = buildCatalog(await sqlite.introspect(connection.db), new Map());
    await pastSchemaCheck();
    expect(await route('query', args)).toBe('main thread');
  });

  it('sends a read pinned to a dropped index to the pool at once', async () => {
    const args: QueryInput = { table: 'child', filter: "kind = 'x'", limit: 3 };
    expect(await route('query', args)).toBe('main thread');
    const writer = new Database(file);
    writer.exec('drop index ix_child_kind');
    writer.close();
    // Before the schema is looked at again: the pinned statement fails here, the pool answers.
    expect(await route('query', args)).toBe('worker');
    await pastSchemaCheck();
    // judged again: a scan, which reaches 3 rows of kind 'x' within the budget
    expect(await route('query', args)).toBe('main thread');
  });
});
