import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgres } from '../src/postgres/index.js';
import { statementCacheSize } from '../src/postgres/prepared.js';
import { freshDatabase, liveUrl } from './support/databases.js';

/**
 * Named prepared statements on PostgreSQL (postgres/prepared.ts), on a real server: reused per
 * connection, bounded, off on request, and a column type changing under a prepared plan costs
 * no error and never runs a write twice (through the write tools' transactions: the server's
 * prepared.test.ts).
 */

const PG_URL = liveUrl(postgres);

/** One connection, so every statement below runs in the session it inspects. */
async function open(url: string, readOnly = false) {
  return postgres.connect(url, { poolSize: 1, readOnly });
}

/** This session's named statements: text and how many times each was executed. */
async function prepared(db: Kysely<unknown>) {
  const { rows } = await sql<{ statement: string; runs: number }>`
    select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements order by name`.execute(
    db,
  );
  return rows;
}

describe.runIf(PG_URL)('PostgreSQL named statements', () => {
  let url = '';

  beforeAll(async () => {
    url = await freshDatabase(postgres, PG_URL!, 'bench_engines_prepared');
    const { db, close } = await open(url);
    await sql`create table t (id int primary key, v int not null)`.execute(db);
    await sql`insert into t select g, g * 10 from generate_series(1, 50) g`.execute(db);
    await close();
  });

  it('a parameterized statement is parsed once per connection and then only executed', async () => {
    const { db, close } = await open(url);
    try {
      for (let id = 1; id <= 7; id++) {
        const { rows } = await sql<{ v: number }>`select v from t where id = ${id}`.execute(db);
        expect(rows).toEqual([{ v: id * 10 }]);
      }
      expect(await prepared(db)).toEqual([{ statement: 'select v from t where id = $1', runs: 7 }]);
    } finally {
      await close();
    }
  });

  it("the read tools' direct path past kysely names its statements too, and answers as `db` does", async () => {
    const { db, shortReads, close } = await open(url);
    try {
      const query = sql<{ v: number }>`select v from t where id = ${3}`.compile(db);
      const table = { name: 't' } as Parameters<NonNullable<typeof shortReads>['execute']>[1];
      for (let i = 0; i < 3; i++)
        expect((await shortReads!.execute(query, table, undefined)).rows).toEqual([{ v: 30 }]);
      expect((await db.executeQuery(query)).rows).toEqual([{ v: 30 }]);
      expect(await prepared(db)).toEqual([{ statement: 'select v from t where id = $1', runs: 4 }]);
    } finally {
      await close();
    }
  });

  it('a named statement is described once per connection: later runs bind and execute only, and answer alike', async () => {
    const { db, shortReads, close } = await open(url);
    const describes = vi.spyOn(pg.Connection.prototype, 'describe');
    try {
      const read = (id: number) => sql<{ id: number; v: number; h: string | null }>`
        select id, v, case when id % 2 = 0 then 'even' end as h from t where id = ${id}`;
      const unnamed = await open(`${url}?statement_cache_size=0`);
      try {
        for (const id of [2, 3, 999, 4]) {
          const expected = (await read(id).execute(unnamed.db)).rows;
          expect((await read(id).execute(db)).rows).toEqual(expected);
          const query = read(id).compile(db);
          const table = { name: 't' } as Parameters<NonNullable<typeof shortReads>['execute']>[1];
          expect((await shortReads!.execute(query, table, undefined)).rows).toEqual(expected);
        }
      } finally {
        await unnamed.close();
      }
      const described = describes.mock.calls.length;
      describes.mockClear();
      for (let id = 1; id <= 5; id++) await read(id).execute(db);
      expect(describes).not.toHaveBeenCalled();
      // the 4 unnamed reads describe every time; the named one on `db` once
      expect(described).toBe(4 + 1);
    } finally {
      describes.mockRestore();
      await close();
    }
  });

  it('past statement_cache_size a connection drops its statements and names again from the start', async () => {
    // read-only, as the server runs by default: DEALLOCATE is allowed there
    const { db, close } = await open(`${url}?statement_cache_size=2`, true);
    try {
      for (let round = 0; round < 3; round++) {
        for (const column of ['v', 'id', 'v + id']) {
          const { rows } = await sql<{ x: number }>`select ${sql.raw(column)} as x from t where id = ${5}`.execute(db);
          expect(rows).toEqual([{ x: column === 'v' ? 50 : column === 'id' ? 5 : 55 }]);
        }
        expect((await prepared(db)).length).toBeLessThanOrEqual(2);
      }
    } finally {
      await close();
    }
  });

  it('statement_cache_size=0 prepares nothing', async () => {
    const { db, close } = await open(`${url}?statement_cache_size=0`);
    try {
      for (let id = 1; id <= 3; id++) await sql`select v from t where id = ${id}`.execute(db);
      expect(await prepared(db)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a column type changed under a prepared plan: a statement on its own answers as unnamed would, and a write runs once', async () => {
    const schema = await open(`${url}?statement_cache_size=0`);
    const { db, close } = await open(url);
    try {
      await sql`create table w (id int primary key, v int not null)`.execute(schema.db);
      const read = () => sql<{ v: unknown }>`select v from w where id = ${1}`.execute(db);
      const write = (id: number) =>
        sql<{ v: unknown }>`insert into w (id, v) values (${id}, ${id}) returning v`.execute(db);
      expect((await write(1)).rows).toEqual([{ v: 1 }]);
      expect((await read()).rows).toEqual([{ v: 1 }]);

      await sql`alter table w alter column v type text`.execute(schema.db);
      expect((await read()).rows).toEqual([{ v: '1' }]);
      await write(0); // prepares the write anew
      await sql`alter table w alter column v type bigint using v::bigint`.execute(schema.db);
      expect((await write(2)).rows).toEqual([{ v: '2' }]);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from w where id = 2`.execute(schema.db);
      expect(rows).toEqual([{ n: 1 }]);

      expect((await read()).rows).toEqual([{ v: '1' }]); // prepared again, for bigint
      await sql`alter table w alter column v type text`.execute(schema.db);
      // statements in a transaction are never named: an aborted transaction could not retry one
      const inTransaction = await db
        .transaction()
        .execute((tx) => sql<{ v: unknown }>`select v from w where id = ${1}`.execute(tx));
      expect(inTransaction.rows).toEqual([{ v: '1' }]);
      expect((await read()).rows).toEqual([{ v: '1' }]);
    } finally {
      await close();
      await schema.close();
    }
  });

  it('statement_cache_size must be a whole number', () => {
    expect(statementCacheSize('postgres://u@h/db')).toBe(256);
    expect(statementCacheSize('postgres://u@h/db?statement_cache_size=7')).toBe(7);
    for (const bad of ['-1', 'x', '1.5', '']) {
      expect(() => statementCacheSize(`postgres://u@h/db?statement_cache_size=${bad}`)).toThrow(
        /statement_cache_size must be a whole number/,
      );
    }
  });

  afterAll(async () => {
    const { db, close } = await open(url);
    await sql`drop table if exists t, w`.execute(db);
    await close();
  });
});
