import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Column, Table } from '../src/catalog.js';
import type { AnyDb, Comparison, Connection } from '../src/engine.js';
import { sqlite } from '../src/sqlite/index.js';
import { pinIndex, SqliteShortReads, VISIT_BUDGET, withVisitBudget } from '../src/sqlite/short-reads.js';

/**
 * SQLite reads that SQLite's own plan proves short run on the main thread (src/sqlite/short-reads.ts),
 * and so do other reads of a table while they visit at most a budget of rows; past it, a read
 * goes to the worker threads. These tests judge real plans of a real database,
 * count what reaches the worker pool, and record what the short-read connection prepares and
 * whether it reads in a transaction. Which of the read tools' statements run where: the server's
 * sqlite-short-reads.test.ts.
 */
let dir = '';
let file = '';
let connection: Connection;
/** the worker pool, counting the statements it is given */
let pool: AnyDb;
let pooled = 0;
let reads: SqliteShortReads;
const prepared: string[] = [];
/** for each read the short-read connection ran, whether it ran inside a transaction */
const inTransaction: boolean[] = [];

/** The tables read below: their columns, primary key first. */
const TABLES: Record<string, { columns: string[]; primaryKey: string[] }> = {
  t: { columns: ['id', 'v'], primaryKey: ['id'] },
  child: { columns: ['id', 'parent_id', 'kind', 'n'], primaryKey: ['id'] },
  wr: { columns: ['x', 'y', 'z'], primaryKey: ['x', 'y'] },
  skew: { columns: ['id', 'g'], primaryKey: ['id'] },
};

function tableOf(name: string): Table {
  const { columns: names, primaryKey } = TABLES[name]!;
  const columns = names.map((column) => ({ name: column }) as Column);
  return {
    name,
    kind: 'table',
    rows: null,
    columns,
    column: new Map(columns.map((c) => [c.name, c])),
    primaryKey,
    foreignKeys: [],
    referencedBy: [],
    indexes: [],
  };
}

interface Read {
  query: CompiledQuery;
  table: Table;
  where: Comparison[];
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A read as the read tools compile it (the server's query/select.ts: `from "table" as "t"`):
 * `get` by key, each column of it bound with `=`.
 */
function get(name: string, key: Record<string, unknown>): Read {
  const columns = TABLES[name]!.columns.map((c) => `${quote(c)} as ${quote(c)}`).join(', ');
  const conditions = Object.keys(key).map((c) => `${quote(c)} = ?`);
  const where = conditions.length > 1 ? `(${conditions.join(' and ')})` : conditions[0];
  return {
    query: CompiledQuery.raw(`select ${columns} from ${quote(name)} as "t" where ${where}`, Object.values(key)),
    table: tableOf(name),
    where: Object.keys(key).map((column) => ({ column, op: '=' })),
  };
}

/** `query` with one equality, ordered by the primary key, one row past `limit` (the next page's cursor). */
function query(name: string, column: string, value: unknown, limit: number, columns = TABLES[name]!.columns): Read {
  const key = TABLES[name]!.primaryKey[0]!;
  const list = [...columns, ...(columns.includes(key) ? [] : [key])].map((c) => `${quote(c)} as ${quote(c)}`);
  const sql = `select ${list.join(', ')} from ${quote(name)} as "t" where ${quote(column)} = ? order by ${quote(key)} asc limit ?`;
  return { query: CompiledQuery.raw(sql, [value, limit + 1]), table: tableOf(name), where: [{ column, op: '=' }] };
}

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
    create table wr (x text, y int, z int, primary key (x, y)) without rowid;
    create table skew (id integer primary key, g int not null);
    create index ix_skew_g on skew (g);`);
  const add = db.prepare('insert into child values (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= 2000; i++) add.run(i, i % 50, i % 3 ? 'x' : 'y', (i * 7919) % 1000);
    db.prepare("insert into wr values ('a', 1, 10), ('a', 2, 20)").run();
    const skew = db.prepare('insert into skew values (?, ?)');
    for (let i = 1; i <= 4000; i++) skew.run(i, i % 40 === 0 ? i : 1);
  })();
  db.close();
  connection = await sqlite.connect(`sqlite:${file}`, { poolSize: 2, readOnly: false });
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

/** Runs a read as the read tools do; says where it ran and checks the rows against the pool's. */
async function route({ query, table, where }: Read): Promise<'main thread' | 'worker'> {
  const before = pooled;
  const { rows } = await reads.execute(query, table, where);
  const ran = pooled === before ? 'main thread' : 'worker';
  expect(rows).toEqual((await connection.db.executeQuery(query)).rows);
  return ran;
}

describe('a plan is judged again when the schema changes', () => {
  it('with STAT4 statistics, pins a read to the index its plan searched', async () => {
    // STAT4 lets SQLite plan per value: g = 1 (nearly every row) alone would be planned as a scan.
    const writer = new Database(file);
    writer.exec('analyze');
    writer.close();
    await pastSchemaCheck();
    // Judged on its first call's plan, a scan, a statement is not proven short (until the schema
    // changes): it is counted against the budget of row visits instead, as SQLite plans it for
    // each value (a scan that stops at 21 rows of g = 1; the index for g = 7).
    expect(await route(query('skew', 'g', 1, 20, ['g']))).toBe('main thread');
    expect(await route(query('skew', 'g', 7, 20, ['g']))).toBe('main thread');
    expect(
      prepared.filter((text) => text.includes('from "skew" as "t" where mcp_db_bench_visit() and "g" = ?')),
    ).toHaveLength(1);
    expect(await route(query('child', 'parent_id', 3, 20))).toBe('main thread');
    expect(await route(query('skew', 'g', 7, 20))).toBe('main thread');
    // The same statement with the common value: pinned to the index, it still visits 21 rows.
    expect(await route(query('skew', 'g', 1, 20))).toBe('main thread');
    expect(
      prepared.filter(
        (text) => !text.startsWith('explain ') && text.includes('from "skew" as "t" indexed by "ix_skew_g" where'),
      ),
    ).toHaveLength(1);
    expect(await route(get('t', { id: 2 }))).toBe('main thread');
    expect(await route(get('wr', { x: 'a', y: 1 }))).toBe('main thread');
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

describe('the budget of row visits', () => {
  const read = (sql: string, parameters: unknown[]): Read => ({
    query: CompiledQuery.raw(sql, parameters),
    table: tableOf('child'),
    where: [],
  });

  it('counts each row a read visits, kept or not, and stops it past the budget', async () => {
    // n takes each value in 0..999 twice among child's 2,000 rows: a scan for one visits every row
    const select = 'select "id" as "id" from "child" as "t"';
    const scan = read(`${select} where "n" = ? order by "id" asc limit ?`, [5, 10]);
    expect(await route(scan)).toBe('worker');
    // the statement's next reads go to the pool without being tried here
    const tried = inTransaction.length;
    expect(await route(scan)).toBe('worker');
    expect(inTransaction).toHaveLength(tried);
    // rows a scan keeps early: the budget is not reached
    expect(await route(read(`${select} where "kind" = ? limit ?`, ['x', 50]))).toBe('main thread');
    // an index search visits the entries of its range: parent_id 3 has 40
    expect(await route(read(`${select} where "n" < ? and "parent_id" = ? limit ?`, [0, 3, 10]))).toBe('main thread');
    expect(VISIT_BUDGET).toBeLessThan(2000);
  });

  it('adds its count to the read tools’ statements, and to no other text', () => {
    const base = 'select "id" as "id" from "child" as "t"';
    expect(withVisitBudget(`${base} where ("a" = ? or "b" = ?) order by "id" asc limit ?`, 'child')).toBe(
      `${base} where mcp_db_bench_visit() and ("a" = ? or "b" = ?) order by "id" asc limit ?`,
    );
    expect(withVisitBudget(`${base} order by "v" asc limit ?`, 'child')).toBe(
      `${base} where mcp_db_bench_visit() order by "v" asc limit ?`,
    );
    expect(withVisitBudget(base, 'child')).toBe(`${base} where mcp_db_bench_visit()`);
    expect(withVisitBudget(`${base} where "x" = ?`, 'other')).toBeUndefined();
    expect(withVisitBudget(`${base} indexed by "ix" where "x" = ?`, 'child')).toBeUndefined();
    expect(withVisitBudget(`${base} where x = ? union all ${base}`, 'child')).toBeUndefined();
  });
});

describe('locks and writes', () => {
  it('sends a read that finds the file locked to a worker thread, leaving the event loop free', async () => {
    const writer = new Database(file);
    writer.exec('begin exclusive');
    try {
      const started = performance.now();
      const read = route(get('t', { id: 1 }));
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
    const where = await Promise.all([1, 2, 1, 2].map((id) => route(get('t', { id }))));
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
    expect(await route(get('t', { id: 1 }))).toBe('main thread');
    expect(inTransaction).toEqual([false]);
  });

  it('sends every read of a turn to the pool when the file is locked, and sees the write committed before', async () => {
    const writer = new Database(file);
    writer.exec("begin exclusive; update t set v = 'uno' where id = 1");
    try {
      const turn = [1, 2, 1].map((id) => route(get('t', { id })));
      setTimeout(() => writer.exec('commit'), 100);
      expect(await Promise.all(turn)).toEqual(['worker', 'worker', 'worker']);
      const { query, table, where } = get('t', { id: 1 });
      const { rows } = await reads.execute(query, table, where);
      expect(rows).toEqual([expect.objectContaining({ v: 'uno' })]);
    } finally {
      if (writer.inTransaction) writer.exec('commit');
      writer.exec("update t set v = 'one' where id = 1");
      writer.close();
    }
    // The next turn reads here again, outside any transaction the failed turn could have left open.
    expect(await route(get('t', { id: 1 }))).toBe('main thread');
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
