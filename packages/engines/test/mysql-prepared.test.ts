import { ToolError } from '@mcp-db-bench/contract';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyDb } from '../src/engine.js';
import { mariadb } from '../src/mariadb/index.js';
import { preparedStatement } from '../src/mysql/prepared.js';
import { encodeParam } from '../src/mysql/types.js';
import { freshDatabase, liveUrl } from './support/databases.js';

/**
 * The sql runner on MariaDB (mysql/read-only.ts): the server binds the values (prepared
 * statements, the binary protocol), so a value is never read as SQL, whatever it holds; values
 * keep the types their literals had; the `?` the server reads, the guard reads and the values
 * bound agree; and nothing a statement leaves on its session outlives the call.
 */

const MYSQL_URL = liveUrl(mariadb);

/** Values that became code when mysql2 wrote them into the text, and their kin. */
export const HOSTILE_VALUES = [
  "/*+ */ , load_file('/etc/passwd') /*",
  "*/ , load_file('/etc/passwd') /*+",
  "--\x7f\n, load_file('/etc/passwd') -- ",
  "-- \n, get_lock('mcp_db_bench_attack', 0) -- ",
  "' , load_file('/etc/passwd'), '",
  "\\' , load_file('/etc/passwd') -- ",
  '\\',
  "''",
  '"',
  '?',
  '??',
  ':v',
  "' into outfile '/tmp/mcp-db-bench-never' -- ",
  '\x00 ; select 1',
  '\u00a0load_file(0)',
];

describe.runIf(MYSQL_URL)('MariaDB: the sql runner binds values through prepared statements', () => {
  let db: AnyDb;
  let close: () => Promise<void>;
  let url = '';
  const run = (statement: RawBuilder<unknown>, maxRows = 10) => mariadb.readOnlyStatement!(db, statement, maxRows);

  beforeAll(async () => {
    url = await freshDatabase(mariadb, MYSQL_URL!, 'bench_sql_prepared');
    ({ db, close } = await mariadb.connect(url, { poolSize: 4, statementTimeoutMs: 5000 }));
    await sql`create table t (id int primary key, name varchar(200), price decimal(12, 2), big bigint)`.execute(db);
    await sql`insert into t values (1, 'a', 19.99, 9007199254740993), (2, 'b', 0.10, -1)`.execute(db);
  });
  afterAll(() => close?.());

  it('a value is a value, in every place a statement can put it', async () => {
    for (const value of HOSTILE_VALUES) {
      expect(await run(sql`select ${value} as v`), JSON.stringify(value)).toEqual([{ v: value }]);
      expect(await run(sql`select /*+ hint */ ${value} as v -- \x7f`)).toEqual([{ v: value }]);
      expect(await run(sql`select concat(${value}, ${value}) as v`)).toEqual([{ v: value + value }]);
      expect(await run(sql`select id from t where name = ${value}`)).toEqual([]);
    }
    const { rows } = await sql<{ n: unknown }>`select count(is_used_lock('mcp_db_bench_attack')) as n`.execute(db);
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('values keep the type their literal had', async () => {
    const [row] = await run(
      sql`select ${42} as i, ${42} / 3 as q, ${1.5} as d, ${1e-7} as f, ${9007199254740993n} as b, ${2n ** 63n} as u,
        ${2n ** 64n} as h, ${null} as n, ${'x'} as s, ${Buffer.from([0, 255])} as bin`,
    );
    expect(row).toEqual({
      i: 42,
      q: '14.0000',
      d: '1.5',
      f: 1e-7,
      b: '9007199254740993',
      u: '9223372036854775808',
      h: '18446744073709551616',
      n: null,
      s: 'x',
      bin: Buffer.from([0, 255]),
    });
    // compared exactly, as the literal was: a decimal column, a big integer, a limit
    expect(await run(sql`select id from t where price = ${encodeParam('decimal', '19.99')}`)).toEqual([{ id: 1 }]);
    expect(await run(sql`select id from t where price = ${0.1}`)).toEqual([{ id: 2 }]);
    expect(await run(sql`select id from t where big = ${encodeParam('integer', '9007199254740993')}`)).toEqual([
      { id: 1 },
    ]);
    expect(await run(sql`select id from t order by id limit ${1}`)).toEqual([{ id: 1 }]);
  });

  it('answers every column type as the text protocol did', async () => {
    await sql`create table types (i int, bi bigint, ubi bigint unsigned, ti tinyint(1), b bit(1), b8 bit(8),
      d decimal(12, 2), f float, db double, dt datetime(3), ts timestamp(6) null, da date, tm time(3), y year,
      vc varchar(10), bl blob, j json, e enum('a', 'b'), u uuid, n int null)`.execute(db);
    await sql`insert into types values (1, 9007199254740993, 18446744073709551615, 1, b'1', b'10101010', 1234.50,
      1.5, 2.25, '2024-01-02 03:04:05.678', '2024-01-02 03:04:05.123456', '2024-01-02', '-12:34:56.789', 2024,
      'x''y', x'00ff', '{"a": [1, 2]}', 'b', '123e4567-e89b-12d3-a456-426614174000', null)`.execute(db);
    const text = 'select *, count(*) over () as c, avg(d) over () as a, 1.5 as dec1, 2 > 1 as t from types';
    const { rows } = await sql.raw<Record<string, unknown>>(text).execute(db);
    expect(await run(sql.raw(text))).toEqual(rows);
    expect(rows[0]).toMatchObject({
      bi: '9007199254740993',
      ti: 1,
      b: true,
      d: '1234.50',
      dt: '2024-01-02 03:04:05.678',
    });
  });

  it('the ? the guard reads, the ? the server reads and the values bound must agree', async () => {
    const refused = async (statement: RawBuilder<unknown>) => {
      const error = await run(statement).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolError);
      return (error as ToolError).message;
    };
    expect(await refused(sql.raw('select ? as v'))).toMatch(/1 parameter marker \(\?\) for 0 values/);
    expect(await refused(sql`select ${1} as v, ? as w`)).toMatch(/2 parameter markers/);
    // a ? inside a string or comment is a character, and a marker glued to a name is none
    expect(await run(sql`select '?' as a, ${'x'} as b /* ? */`)).toEqual([{ a: '?', b: 'x' }]);
    expect(await run(sql`select ${1} as a, ${2} as b`)).toEqual([{ a: 1, b: 2 }]);
    // and where the guard's count is not asked, the server's is
    const unchecked = db.connection().execute((conn) => conn.executeQuery(preparedStatement('select ? as v', [])));
    await expect(unchecked).rejects.toThrow(
      /the server reads 1 parameter markers \(\?\) in the statement for 0 values/,
    );
  });

  it('one statement, even when the URL asks mysql2 for several', async () => {
    const many = `${url}${url.includes('?') ? '&' : '?'}multipleStatements=true`;
    const other = await mariadb.connect(many, { poolSize: 1 });
    try {
      for (const text of ['select 1; delete from t', '/* x */ select 1; delete from t where id = 1']) {
        await expect(mariadb.readOnlyStatement!(other.db, sql.raw(text), 10)).rejects.toThrow(/syntax/);
        await expect(sql.raw(text).execute(other.db)).rejects.toThrow(/syntax/);
      }
    } finally {
      await other.close();
    }
    const { rows } = await sql<{ n: unknown }>`select count(*) as n from t`.execute(db);
    expect(Number(rows[0]!.n)).toBe(2);
  });

  it('an answer past the budget closes its connection mid-statement, and the pool goes on', async () => {
    const small = await mariadb.connect(url, { poolSize: 1, maxResponseBytes: 64 * 1024 });
    try {
      await expect(
        mariadb.readOnlyStatement!(small.db, sql`select repeat(${'x'}, ${1024 * 1024}) as v`, 10),
      ).rejects.toMatchObject({ code: 'limit_exceeded' });
      expect(await mariadb.readOnlyStatement!(small.db, sql`select ${'still here'} as v`, 10)).toEqual([
        { v: 'still here' },
      ]);
    } finally {
      await small.close();
    }
  });

  it('what a function the database defines leaves on the session, no later call sees', async () => {
    await sql`create function leave_state() returns int not deterministic no sql begin
      set @leak = 42;
      return last_insert_id(77) + get_lock('mcp_db_bench_prepared', 0);
    end`.execute(db);
    await sql`create function peek_state() returns text not deterministic no sql
      return concat_ws(',', coalesce(@leak, '-'), last_insert_id(), coalesce(is_used_lock('mcp_db_bench_prepared'), 0))`.execute(
      db,
    );
    const seen: unknown[] = [];
    for (let round = 0; round < 10; round++) {
      const left = await Promise.all(Array.from({ length: 4 }, () => run(sql`select leave_state() as s`)));
      // 77, plus 1 on the connection that got the lock first
      expect(left.flat().filter((r) => Number(r.s) >= 77)).toHaveLength(4);
      const peeks = await Promise.all(Array.from({ length: 8 }, () => run(sql`select peek_state() as p`)));
      seen.push(...peeks.flat().map((r) => r.p));
    }
    expect(seen).toHaveLength(80);
    expect(seen.filter((p) => p !== '-,0,0')).toEqual([]);
  });
});
