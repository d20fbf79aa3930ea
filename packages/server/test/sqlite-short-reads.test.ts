import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GetInput, QueryInput } from '@mcp-db-bench/contract';
import type { AnyDb, Connection } from '@mcp-db-bench/engines';
import Database from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// from the engine's source, as SqliteShortReads is: `toBeInstanceOf` needs the one class
import { sqlite } from '../../engines/src/sqlite/index.js';
import { pinIndex, SqliteShortReads } from '../../engines/src/sqlite/short-reads.js';
import { buildCatalog } from '../src/catalog/build.js';
import type { Catalog } from '../src/catalog/types.js';
import { DEFAULT_LIMITS } from '../src/context.js';
import { readRows } from '../src/query/read.js';
import { planGet } from '../src/tools/get.js';
import { planQuery } from '../src/tools/query.js';

/**
 * SQLite reads that SQLite's own plan proves short run on the main thread
 * (packages/engines/src/sqlite/short-reads.ts); everything else goes to the worker threads. These tests
 * judge real plans of a real database, and count what reaches the worker pool.
 */
let dir = '';
let file = '';
let connection: Connection;
let catalog: Catalog;
/** the worker pool, counting the statements it is given */
let pool: AnyDb;
let pooled = 0;
let reads: SqliteShortReads;
const prepared: string[] = [];
/** for each read the short-read connection ran, whether it ran inside a transaction */
const inTransaction: boolean[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-short-'));
  file = join(dir, 'short.db');
  // The default rollback journal: readers are locked out while a writer holds the file.
  const db = new Database(file);
  db.exec(`
    create table t (id integer primary key, v text not null);
    insert into t values (1, 'one'), (2, 'two');
    create table child (id integer primary key, parent_id int not null, kind text not null, n int);
    create index ix_child_parent on child (parent_id);
    create table pair (a int, b int, c text, primary key (a, b));
    create table wr (x text, y int, z int, primary key (x, y)) without rowid;
    create view child_x as select * from child where kind = 'x';
    create table skew (id integer primary key, g int not null);
    create index ix_skew_g on skew (g);`);
  const add = db.prepare('insert into child values (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 2000; i++) add.run(i, i % 50, i % 3 ? 'x' : 'y', (i * 7919) % 1000);
    db.prepare("insert into pair values (1, 2, 'p'), (1, 3, 'q')").run();
    db.prepare("insert into wr values ('a', 1, 10), ('a', 2, 20)").run();
    const skew = db.prepare('insert into skew values (?, ?)');
    for (let i = 1; i <= 4000; i++) skew.run(i, i % 40 === 0 ? i : 1);
  })();
  db.close();
  connection = await sqlite.connect(`sqlite:${file}`, { poolSize: 2, readOnly: false });
  catalog = buildCatalog(await sqlite.introspect(connection.db), new Map());
  pool = new Proxy(connection.db, {
    get(target, key, receiver) {
      if (key !== 'executeQuery') return Reflect.get(target, key, receiver);
      return (query: CompiledQuery) => {
        pooled++;
        return target.executeQuery(query);
      };
    },
  });
  // Records each statement text the short-read connection prepares (cached ones once), and
  // whether each read it runs is inside a transaction.
  function Recording(path: string, options: Database.Options) {
    const database = new Database(path, options);
    const prepare = database.prepare.bind(database);
    database.prepare = ((source: string) => {
      prepared.push(source);
      const statement = prepare(source);
      const all = statement.all.bind(statement);
      statement.all = ((...parameters: unknown[]) => {
        inTransaction.push(database.inTransaction);
        return all(...parameters);
      }) as typeof statement.all;
      return statement;
    }) as typeof database.prepare;
    return database;
  }
  reads = SqliteShortReads.open(Recording as unknown as typeof Database, file, pool);
});
afterAll(async () => {
  reads?.close();
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
  const before = pooled;
  const rows = await readRows({ db: pool, shortReads: reads }, plan.compiled, plan.table, plan.where);
  const where = pooled === before ? 'main thread' : 'worker';
  expect(rows).toEqual((await connection.db.executeQuery(plan.compiled)).rows);
  return where;
}

describe('proven short: on the main thread', () => {
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
  ])('%s %o', async (tool, args) => {
    expect(await route(tool, args)).toBe('main thread');
  });

  it('follows a cursor on the main thread', async () => {
    const args: QueryInput = { table: 'child', filter: 'parent_id = 7', limit: 10 };
    const plan = planQuery(args, catalog, sqlite, connection.db, DEFAULT_LIMITS);
    const page = plan.finish(await readRows({ db: pool, shortReads: reads }, plan.compiled, plan.table, plan.where));
    expect(page.truncated).toBe(true);
    expect(await route('query', { ...args, cursor: page.next_cursor! })).toBe('main thread');
  });
});

describe('not proven short: on a worker thread', () => {
  it.each<[string, QueryInput]>([
    ['a column without an index (a scan)', { table: 'child', filter: "kind = 'x'" }],
    ['a condition the index does not take', { table: 'child', filter: "parent_id = 3 and kind = 'x'" }],
    ['a range the index does not take', { table: 'child', filter: 'parent_id >= 3' }],
    ['a sort the index does not give', { table: 'child', filter: 'parent_id = 3', order_by: ['n'] }],
    ['a sort of the whole table', { table: 't', order_by: ['v'] }],
    ['or', { table: 'child', filter: 'parent_id = 3 or parent_id = 4' }],
    ['in', { table: 'child', filter: 'parent_id in (3, 4)' }],
    ['not', { table: 'child', filter: 'not (parent_id = 3)' }],
    ['is null', { table: 'child', filter: 'n is null' }],
    ['a view, whose own conditions its plan does not show', { table: 'child_x', filter: 'parent_id = 3' }],
    ['one range bound twice', { table: 'child', filter: 'id > 3 and id > 4' }],
  ])('%s', async (_, args) => {
    expect(await route('query', args)).toBe('worker');
  });
});

describe('a plan is judged again when the schema changes', () => {
  it('takes a new index into account', async () => {
    const args: QueryInput = { table: 'child', filter: "kind = 'y'", limit: 3 };
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
    expect(await route('query', args)).toBe('worker');
  });

  it('with STAT4 statistics, pins a read to the index its plan searched', async () => {
    // STAT4 lets SQLite plan per value: g = 1 (nearly every row) alone would be planned as a scan.
    const writer = new Database(file);
    writer.exec('analyze');
    writer.close();
    await pastSchemaCheck();
    // Judged on its first call's plan, a scan, a statement stays on the pool (until the schema changes).
    expect(await route('query', { table: 'skew', columns: ['g'], filter: 'g = 1', limit: 20 })).toBe('worker');
    expect(await route('query', { table: 'skew', columns: ['g'], filter: 'g = 7', limit: 20 })).toBe('worker');
    expect(await route('query', { table: 'child', filter: 'parent_id = 3', limit: 20 })).toBe('main thread');
    expect(await route('query', { table: 'skew', filter: 'g = 7', limit: 20 })).toBe('main thread');
    // The same statement with the common value: pinned to the index, it still visits 21 rows.
    expect(await route('query', { table: 'skew', filter: 'g = 1', limit: 20 })).toBe('main thread');
    expect(
      prepared.filter(
        (text) => !text.startsWith('explain ') && text.includes('from "skew" as "t" indexed by "ix_skew_g" where'),
      ),
    ).toHaveLength(1);
    expect(await route('get', { table: 't', key: 2 })).toBe('main thread');
    expect(await route('get', { table: 'wr', key: { x: 'a', y: 1 } })).toBe('main thread');
  });
});

describe('pinIndex', () => {
  const sql = 'select "id" as "id" from "child" as "t" where "parent_id" = ? order by "id" asc limit ?';
  it('pins the index a search step names', () => {
    expect(pinIndex(sql, 'child', 'SEARCH t USING COVERING INDEX ix_child_parent (parent_id=?)')).toBe(
      'select "id" as "id" from "child" as "t" indexed by "ix_child_parent" where "parent_id" = ? order by "id" asc limit ?',
    );
  });
  it('quotes names', () => {
    expect(pinIndex('select 1 from "a""b" as "t" where x = ?', 'a"b', 'SEARCH t USING INDEX i"x (x=?)')).toBe(
      'select 1 from "a""b" as "t" indexed by "i""x" where x = ?',
    );
  });
  it('pins the index a scan step names', () => {
    expect(pinIndex(sql, 'child', 'SCAN t USING COVERING INDEX ix_child_parent')).toContain(
      'from "child" as "t" indexed by "ix_child_parent" where',
    );
  });
  it('pins nothing it cannot name or place', () => {
    expect(pinIndex(sql, 'child', 'SEARCH t USING INTEGER PRIMARY KEY (rowid>?)')).toBeUndefined();
    expect(pinIndex(sql, 'child', 'SEARCH t USING PRIMARY KEY (x=?)')).toBeUndefined();
    expect(pinIndex(sql, 'child', 'SCAN t')).toBeUndefined();
    expect(pinIndex(sql, 'orders', 'SEARCH t USING INDEX ix (a=?)')).toBeUndefined();
    expect(pinIndex(`${sql} union all ${sql}`, 'child', 'SEARCH t USING INDEX ix (a=?)')).toBeUndefined();
  });
});

describe('locks and writes', () => {
  it('sends a read that finds the file locked to a worker thread, leaving the event loop free', async () => {
    const writer = new Database(file);
    writer.exec('begin exclusive');
    try {
      const started = performance.now();
      const read = route('get', { table: 't', key: 1 });
      // A timer due in 50 ms fires on time: nothing waits for the lock on this thread.
      const timerLateness = await new Promise<number>((resolve) =>
        setTimeout(() => resolve(performance.now() - started - 50), 50),
      );
      expect(timerLateness).toBeLessThan(100);
      setTimeout(() => writer.exec('commit'), 250);
      expect(await read).toBe('worker');
      // It waited for the writer (the worker's busy_timeout), so it did not fail on the lock.
      expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    } finally {
      if (writer.inTransaction) writer.exec('commit');
      writer.close();
    }
  });

  it('runs the reads that arrive together in one transaction, and ends it', async () => {
    inTransaction.length = 0;
    const where = await Promise.all([1, 2, 1, 2].map((key) => route('get', { table: 't', key })));
    expect(where).toEqual(['main thread', 'main thread', 'main thread', 'main thread']);
    expect(inTransaction).toEqual([true, true, true, true]);
    // No lock is left behind: a writer gets the file at once.
    const writer = new Database(file, { timeout: 0 });
    try {
      expect(() => writer.exec('begin exclusive; commit')).not.toThrow();
    } finally {
      writer.close();
    }
    inTransaction.length = 0;
    expect(await route('get', { table: 't', key: 1 })).toBe('main thread');
    expect(inTransaction).toEqual([false]);
  });

  it('sends every read of a turn to the pool when the file is locked, and sees the write committed before', async () => {
    const writer = new Database(file);
    writer.exec("begin exclusive; update t set v = 'uno' where id = 1");
    try {
      const turn = [1, 2, 1].map((key) => route('get', { table: 't', key }));
      setTimeout(() => writer.exec('commit'), 100);
      expect(await Promise.all(turn)).toEqual(['worker', 'worker', 'worker']);
      const plan = planGet({ table: 't', key: 1 }, catalog, sqlite, connection.db);
      const rows = await readRows({ db: pool, shortReads: reads }, plan.compiled, plan.table, plan.where);
      expect(rows).toEqual([expect.objectContaining({ v: 'uno' })]);
    } finally {
      if (writer.inTransaction) writer.exec('commit');
      writer.exec("update t set v = 'one' where id = 1");
      writer.close();
    }
    // The next turn reads here again, outside any transaction the failed turn could have left open.
    expect(await route('get', { table: 't', key: 1 })).toBe('main thread');
  });

  it('refuses a connection that could write', () => {
    const writable = new Database(file);
    try {
      expect(() => new SqliteShortReads(writable, pool)).toThrow(/read-only/);
    } finally {
      writable.close();
    }
  });

  it('is what a served SQLite connection reads through', () => {
    expect(connection.shortReads).toBeInstanceOf(SqliteShortReads);
  });
});
