import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpose } from '../src/answer-bytes.js';
import type { Connection, Engine, ShortReads } from '../src/engine.js';
import { mariadb } from '../src/mariadb/index.js';
import { RowBytes } from '../src/postgres/answer-meter.js';
import { postgres } from '../src/postgres/index.js';
import { sqlite } from '../src/sqlite/index.js';
import { freshDatabase, liveUrl } from './support/databases.js';

/**
 * Answers counted while they are read (answer-bytes.ts): the PostgreSQL protocol's framing, and on
 * each live engine a connection whose budget is a few kilobytes, so that an answer past it is
 * stopped with the budget's error, in the database too, and the connection goes on serving.
 */

/** the largest result, as the server would pass it: rows are stopped past twice this */
const MAX_RESPONSE_BYTES = 1000;

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
const dataRow = (bytes: number) => message('D', Buffer.alloc(bytes, 0x78));
const ready = message('Z', Buffer.from('I'));
const other = message('T', Buffer.alloc(30, 1));

/** Feeds `stream` to a RowBytes cut at `cuts`; the offset of the chunk it refused in, or -1. */
function feed(budget: number, stream: Buffer, cuts: number[]): number {
  const rows = new RowBytes(budget);
  let from = 0;
  for (const to of [...cuts, stream.length]) {
    if (rows.see(stream.subarray(from, to))) return from;
    from = to;
  }
  return -1;
}

describe('RowBytes: a statement’s DataRow bytes from the PostgreSQL protocol’s framing', () => {
  // two statements: rows of 5 + 95 + 5 bytes each (the header counts), then 5 + 50 + 5 + 50
  const stream = Buffer.concat([other, dataRow(95), dataRow(95), ready, other, dataRow(50), dataRow(50), ready]);

  it('counts each statement apart, however the bytes are cut', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(feed(200, stream, [cut])).toBe(-1);
      expect(
        feed(
          200,
          stream,
          [cut, Math.min(stream.length, cut + 3)].sort((a, b) => a - b),
        ),
      ).toBe(-1);
    }
    // byte by byte: every header split every way
    expect(
      feed(
        200,
        stream,
        Array.from({ length: stream.length - 1 }, (_, i) => i + 1),
      ),
    ).toBe(-1);
  });

  it('refuses a statement past its budget in the chunk where the row that passes it starts', () => {
    // the first statement has 200 bytes of rows: over a budget of 199, at the second row's header
    const second = other.length + 100;
    expect(feed(199, stream, [second])).toBe(second);
    expect(feed(199, stream, [second + 3])).toBe(second + 3);
    const all = Array.from({ length: stream.length - 1 }, (_, i) => i + 1);
    expect(feed(199, stream, all)).toBe(second + 4); // the header's last byte
  });

  it('refuses a row larger than the budget by its header, before its body comes', () => {
    const huge = Buffer.alloc(5);
    huge.write('D', 0, 'latin1');
    huge.writeUInt32BE(600 * 1024 * 1024, 1);
    expect(new RowBytes(1024 * 1024).see(huge)?.code).toBe('limit_exceeded');
  });
});

describe('interpose: what a driver throws while it reads its socket', () => {
  /** A loopback socket whose reader throws `thrown` on the first chunk; the error the socket ends with. */
  async function readerThrows(thrown: Error): Promise<{ error: unknown; reads: number; stopped: number }> {
    // the peer is cut off while it writes: its reset is expected
    const server = createServer((peer) => peer.on('error', () => {}).end(Buffer.alloc(100_000, 1)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket: Socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let reads = 0;
    let stopped = 0;
    const reader = () => {
      reads++;
      throw thrown;
    };
    socket.on('data', reader);
    interpose(
      socket,
      reader,
      () => undefined,
      () => stopped++,
    );
    const [error] = await once(socket, 'error');
    server.close();
    return { error, reads, stopped };
  }

  it('becomes the error the socket ends with: a value too long for a string is limit_exceeded, the rest database_error', async () => {
    const tooLong = Object.assign(new Error('Cannot create a string longer than 0x1fffffe8 characters'), {
      code: 'ERR_STRING_TOO_LONG',
    });
    const first = await readerThrows(tooLong);
    expect(first.error).toMatchObject({
      code: 'limit_exceeded',
      message: expect.stringMatching(/larger than the driver can hold/),
    });
    // the socket is read no more once its reader failed, and the statement was told to stop once
    expect(first).toMatchObject({ reads: 1, stopped: 1 });
    const other = await readerThrows(new TypeError('bad message'));
    expect(other.error).toMatchObject({
      code: 'database_error',
      message: expect.stringMatching(/could not read the answer: bad message/),
    });
  });
});

interface Live {
  engine: Engine;
  url?: string;
  /** `rows` rows of `width` bytes of text, made as they are sent */
  rows(rows: number, width: number): string;
  /** what of the statement `rows(...)` still runs, seen from another session */
  running?: string;
}

const live: Live[] = [
  {
    engine: postgres,
    url: liveUrl(postgres),
    // in the select list, so rows stream as they are made (in FROM, all are made first)
    rows: (n, width) => `select repeat('x', ${width}) as v, generate_series(1, ${n}) as i`,
    running:
      "select pid from pg_stat_activity where query like '%generate_series%' and state = 'active' and pid <> pg_backend_pid()",
  },
  {
    engine: mariadb,
    url: liveUrl(mariadb),
    rows: (n, width) => `select repeat('x', ${width}) as v from seq_1_to_${n}`,
    running:
      "select id from information_schema.processlist where info like '%seq_1_to%' and command <> 'Sleep' and id <> connection_id()",
  },
  {
    engine: sqlite,
    url: 'sqlite:',
    rows: (n, width) =>
      `with recursive c(i) as (select 1 union all select i + 1 from c where i < ${n}) select printf('%.*c', ${width}, 'x') as v from c`,
  },
];

describe.each(live.filter((l) => l.url))('$engine.title: a connection whose answers pass the budget', (target) => {
  let conn: Connection;
  let db: Kysely<unknown>;
  /** as the sql tool runs caller-written SQL (SQLite: in its own process, row by row) */
  const run = async (text: string) => ({
    rows: await target.engine.readOnlyStatement!(db, sql.raw(text), 1_000_000_000),
  });
  /** as the read tools' statements run (pooled connections; SQLite: worker threads, which count after reading) */
  const pooled = (text: string) => sql.raw<{ v: string }>(text).execute(db);

  beforeAll(async () => {
    const url = await freshDatabase(target.engine, target.url!, 'bench_engines_answers');
    conn = await target.engine.connect(url, { poolSize: 3, create: true, maxResponseBytes: MAX_RESPONSE_BYTES });
    db = conn.db as Kysely<unknown>;
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('answers within the budget, refuses past it, and goes on serving', async () => {
    expect((await run(target.rows(10, 100))).rows).toHaveLength(10);
    await expect(run(target.rows(50, 100))).rejects.toMatchObject({
      code: 'limit_exceeded',
      message: expect.stringMatching(/passed 2000 bytes .* 1000 bytes of JSON .*--max-response-bytes/),
    });
    await expect(pooled(target.rows(50, 100))).rejects.toMatchObject({ code: 'limit_exceeded' });
    // a connection stopped mid-answer is never handed out again: every later statement is answered
    for (let i = 0; i < 10; i++) {
      expect((await run(target.rows(3, 10))).rows).toHaveLength(3);
      expect((await pooled(target.rows(3, 10))).rows).toHaveLength(3);
    }
  });

  it('stops a statement that would send rows without end, in the database too', async () => {
    await expect(run(target.rows(100_000_000, 1000))).rejects.toMatchObject({ code: 'limit_exceeded' });
    if (!target.running) return;
    let running: unknown[] = [];
    for (let i = 0; i < 50; i++) {
      running = (await sql.raw(target.running).execute(db)).rows;
      if (running.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(running).toEqual([]);
  });
});

describe.runIf(liveUrl(postgres))('PostgreSQL: the read lane, stopped by an answer past the budget', () => {
  let conn: Connection;

  beforeAll(async () => {
    const url = await freshDatabase(postgres, liveUrl(postgres)!, 'bench_engines_answers_lane');
    conn = await postgres.connect(url, { poolSize: 3, maxResponseBytes: MAX_RESPONSE_BYTES });
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('gives the reads in flight beside the one refused their own rows', async () => {
    const db = conn.db as Kysely<unknown>;
    const table = { name: 't' } as Parameters<ShortReads['execute']>[1];
    const read = (query: CompiledQuery) => conn.shortReads!.execute<Record<string, unknown>>(query, table, undefined);
    const small = (i: number) => sql<{ i: number }>`select ${i}::int as i`.compile(db);
    // The lane opens in the background: two reads in one turn run on one backend once it has.
    const pid = sql<{ pid: number }>`select pg_backend_pid() as pid where ${1} = 1`.compile(db);
    for (let i = 0; i < 50; i++) {
      const [a, b] = await Promise.all([read(pid), read(pid)]);
      if (a.rows[0]!.pid === b.rows[0]!.pid) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let round = 0; round < 3; round++) {
      const before = Array.from({ length: 10 }, (_, i) => read(small(i)));
      const large = read(sql`select repeat('x', 100) as v from generate_series(1, ${50 + round})`.compile(db));
      const after = Array.from({ length: 10 }, (_, i) => read(small(100 + i)));
      await expect(large).rejects.toMatchObject({ code: 'limit_exceeded' });
      expect((await Promise.all(before)).map((a) => a.rows)).toEqual(Array.from({ length: 10 }, (_, i) => [{ i }]));
      expect((await Promise.all(after)).map((a) => a.rows)).toEqual(
        Array.from({ length: 10 }, (_, i) => [{ i: 100 + i }]),
      );
    }
  });
});
