import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inCall, SignalCall } from '../src/calls.js';
import type { Connection, ShortReads } from '../src/engine.js';
import { postgres } from '../src/postgres/index.js';
import { freshDatabase, liveUrl } from './support/databases.js';

/**
 * The read tools' lane on PostgreSQL (postgres/direct-reads.ts): one pipelined connection that
 * reads share, on a real server. Each read gets its own answer or its own error; a read whose
 * call is abandoned is cancelled and no other read pays for it; a slow read holds up only the
 * reads already written behind it; a lost lane is replaced.
 */

const PG_URL = liveUrl(postgres);
const TABLE = { name: 't' } as Parameters<ShortReads['execute']>[1];

describe.runIf(PG_URL)('PostgreSQL reads on a pipelined lane', () => {
  let url = '';
  let conn: Connection;
  let reads: ShortReads;
  let db: Kysely<unknown>;
  const read = (query: CompiledQuery) => reads.execute<Record<string, unknown>>(query, TABLE, undefined);
  /** The backend that serves `query` on the lane (the lane opens in the background: ask until it does). */
  const lanePid = async (on: ShortReads = reads): Promise<number> => {
    const pid = sql<{ pid: number }>`select pg_backend_pid() as pid where ${1} = 1`.compile(db);
    const ask = () => on.execute<Record<string, unknown>>(pid, TABLE, undefined);
    const pool = new Set<number>();
    for (let i = 0; i < 50; i++) {
      const [a, b] = await Promise.all([ask(), ask()]);
      // two reads in one turn share the lane once it is open
      if (a!.rows[0]!.pid === b!.rows[0]!.pid && !pool.has(a!.rows[0]!.pid as number)) return a!.rows[0]!.pid as number;
      pool.add(a!.rows[0]!.pid as number);
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('the lane never opened');
  };
  const sleep = (seconds: number, tag: number) =>
    sql<{ tag: number }>`select ${tag}::int as tag from pg_sleep(${seconds}::float)`.compile(db);
  const row = (id: number) => sql<{ id: number; v: number }>`select id, v from t where id = ${id}`.compile(db);

  beforeAll(async () => {
    url = await freshDatabase(postgres, PG_URL!, 'bench_engines_lane');
    const setup = await postgres.connect(url, { poolSize: 1 });
    await sql`create table t (id int primary key, v int not null, label text)`.execute(setup.db);
    await sql`insert into t select g, g * 10, 'row ' || g from generate_series(1, 100) g`.execute(setup.db);
    await setup.close();
  });
  beforeEach(async () => {
    conn = await postgres.connect(url, { poolSize: 3 });
    reads = conn.shortReads!;
    db = conn.db as Kysely<unknown>;
    await lanePid();
  });
  afterEach(async () => {
    await conn.close();
  });

  it('reads of several shapes in flight together each get their own rows', async () => {
    const queries = Array.from({ length: 300 }, (_, i) => {
      const id = (i % 100) + 1;
      if (i % 3 === 0) return { query: row(id), expected: [{ id, v: id * 10 }] };
      if (i % 3 === 1)
        return {
          query: sql`select label, v * 2 as double from t where id = ${id}`.compile(db),
          expected: [{ label: `row ${id}`, double: id * 20 }],
        };
      return {
        query: sql`select id from t where id > ${id} order by id limit 2`.compile(db),
        expected: [id + 1, id + 2].filter((n) => n <= 100).map((n) => ({ id: n })),
      };
    });
    const answers = await Promise.all(queries.map(({ query }) => read(query)));
    expect(answers.map((a) => a.rows)).toEqual(queries.map((q) => q.expected));
  });

  it('reads one at a time (each written at once), then in bursts (one write a turn), then alone again, each get their own rows', async () => {
    const one = async (id: number) => expect((await read(row(id))).rows).toEqual([{ id, v: id * 10 }]);
    for (let round = 0; round < 3; round++) {
      for (let id = 1; id <= 20; id++) await one(id);
      await Promise.all(Array.from({ length: 20 }, (_, i) => one(100 - i)));
    }
    for (let id = 50; id <= 60; id++) await one(id);
  });

  it('a read that fails fails alone: the reads written before and after it get their rows', async () => {
    const divide = (by: number) => sql<{ q: number }>`select v / ${by}::int as q from t where id = 1`.compile(db);
    const settled = await Promise.allSettled([read(row(1)), read(divide(0)), read(row(2)), read(divide(5))]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: '22012' });
    expect((settled[2] as PromiseFulfilledResult<{ rows: unknown[] }>).value.rows).toEqual([{ id: 2, v: 20 }]);
    expect((settled[3] as PromiseFulfilledResult<{ rows: unknown[] }>).value.rows).toEqual([{ q: 2 }]);
  });

  it('an abandoned read is cancelled where it runs, and the read behind it answers', async () => {
    const leave = new AbortController();
    const started = performance.now();
    const slow = inCall(new SignalCall(leave.signal), () => read(sleep(30, 1)));
    const behind = read(row(7));
    setTimeout(() => leave.abort(), 200);
    await expect(slow).rejects.toMatchObject({ code: '57014' });
    expect((await behind).rows).toEqual([{ id: 7, v: 70 }]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('an abandoned read waiting behind another is cancelled once it runs; the one before it is not', async () => {
    const leave = new AbortController();
    const started = performance.now();
    const first = read(sleep(0.3, 1));
    const waiting = inCall(new SignalCall(leave.signal), () => read(sleep(30, 2)));
    const cancelled = expect(waiting).rejects.toMatchObject({ code: '57014' });
    const last = read(row(9));
    setTimeout(() => leave.abort(), 100);
    expect((await first).rows).toEqual([{ tag: 1 }]);
    await cancelled;
    expect((await last).rows).toEqual([{ id: 9, v: 90 }]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('while a slow read holds the lane, later reads take pooled connections and answer at once', async () => {
    const slow = read(sleep(1.5, 1));
    await new Promise((r) => setTimeout(r, 100));
    const started = performance.now();
    expect((await read(row(3))).rows).toEqual([{ id: 3, v: 30 }]);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect((await slow).rows).toEqual([{ tag: 1 }]);
  });

  it('reads that each take long run side by side on pooled connections once the lane has learnt its pace', async () => {
    const wide = await postgres.connect(url, { poolSize: 8 });
    try {
      const slow = (tag: number) =>
        wide.shortReads!.execute<{ tag: number }>(sleep(0.2, tag), TABLE, undefined).then((a) => a.rows[0]!.tag);
      // The lane opens in the background: until it has run a read, reads take the pool.
      for (let i = 0; i < 3; i++) await slow(0);
      const started = performance.now();
      expect(await Promise.all([1, 2, 3, 4, 5, 6].map(slow))).toEqual([1, 2, 3, 4, 5, 6]);
      // one after another on the lane: 1.2 s
      expect(performance.now() - started).toBeLessThan(800);
    } finally {
      await wide.close();
    }
  });

  it('a lane whose connection is lost fails only the reads on it, and reads go on', async () => {
    const pid = await lanePid();
    const slow = read(sleep(30, 1));
    // watched from now: it may fail while the killer's pool is still closing
    const failed = expect(slow).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    const killer = await postgres.connect(url, { poolSize: 1 });
    try {
      await sql`select pg_terminate_backend(${pid})`.execute(killer.db);
    } finally {
      await killer.close();
    }
    await failed;
    for (let i = 0; i < 3; i++) expect((await read(row(4))).rows).toEqual([{ id: 4, v: 40 }]);
    expect(await lanePid()).not.toBe(pid);
  });

  it('counts as a connection in use while it has reads in flight, and as none once they end', async () => {
    // the connections in use after each change
    const held: number[] = [];
    let sum = 0;
    const count = (change: 1 | -1) => {
      sum += change;
      held.push(sum);
    };
    const observed = await postgres.connect(url, {
      poolSize: 3,
      observer: { statement: () => () => {}, acquire: () => () => {}, held: count },
    });
    try {
      await lanePid(observed.shortReads!);
      held.length = 0;
      // one at a time, so each finds the lane idle and takes it
      for (const id of [1, 2, 3]) {
        const { rows } = await observed.shortReads!.execute<{ id: number }>(row(id), TABLE, undefined);
        expect(rows[0]!.id).toBe(id);
      }
      expect(held).toEqual([1, 0, 1, 0, 1, 0]);
    } finally {
      await observed.close();
    }
  });

  it('closing cancels a read on the lane and ends its connection', async () => {
    const slow = read(sleep(30, 1));
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    const failed = expect(slow).rejects.toMatchObject({ code: '57014' });
    await conn.close();
    await failed;
    expect(performance.now() - started).toBeLessThan(5_000);
    conn = await postgres.connect(url, { poolSize: 3 });
  });
});
