import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { engineForUrl } from '@mcp-db-bench/engines';
import { type TestFacts, testFactsOf } from '@mcp-db-bench/engines/testing';
import { engineOf, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseContext, openDatabase } from '../src/context.js';
import { createServerFactory } from '../src/server.js';
import { startHttp } from '../src/transports/http.js';
import { sleep } from './support/agents.js';
import {
  batchRequest,
  callJson,
  connectClient,
  type Era,
  exitOf,
  type HttpServer,
  startHttpServer,
} from './support/mcp.js';
import { cpuTicks } from './support/probes.js';
import { loadShop } from './support/shop.js';

/**
 * A call whose client goes away is cancelled in the database, and its connection goes back to
 * the pool: on every path a call takes (the hot paths of both eras, the SDK's, stdio) and when
 * the server shuts down. Before, 20 clients that left mid-statement kept the pool of 10 busy
 * until the statement timeout, and another client's `get` failed after 15 s.
 */
const CLIENTS = 20;
/**
 * How soon after its client leaves nothing of a call may run, and the pool must serve again: far
 * below the statement timeout. MariaDB's KILL QUERY retries its wake-up of a waiting thread for up
 * to 2 s (THD::abort_current_cond_wait), and ten kills of `sleep()` at once on a busy server reach
 * that bound: the statements then stop, and their connections come back, just after 2 s.
 */
const FREED_WITHIN_MS = 5_000;

/** A full garbage collection, as `--expose-gc` gives it, asked for at run time. */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

// a slow statement to abandon, on an engine that can cancel it
const targets = liveTargets().filter((t) => testFactsOf(engineOf(t)).slow && engineOf(t).cancelsStatements);

/** How one client calls: the path it takes through the server, and what it runs there. */
interface Caller {
  era: Era;
  /** a `_meta` the hot paths do not take, so the SDK answers */
  sdk: boolean;
  /** the sql tool's slow statement, or a read of the slow view */
  tool: 'sql' | 'query';
}

const CALLERS: Caller[] = [
  { era: 'modern', sdk: false, tool: 'sql' },
  { era: 'legacy', sdk: false, tool: 'sql' },
  { era: 'modern', sdk: false, tool: 'query' },
  { era: 'legacy', sdk: false, tool: 'query' },
  { era: 'modern', sdk: true, tool: 'sql' },
  { era: 'legacy', sdk: true, tool: 'query' },
];

describe.each(targets)('$engine', (target) => {
  let dbUrl = '';
  let slow: NonNullable<TestFacts['slow']>;
  let server: HttpServer;
  /** The database's own list of our slow statements (PostgreSQL, MariaDB): a row each. */
  let probe: { list(): Promise<unknown[]>; close(): Promise<void> } | undefined;

  /** A process's children: on SQLite, caller-written SQL runs in one (sql-process.ts). */
  const children = (pid: number): string[] =>
    spawnSync('pgrep', ['-P', String(pid)])
      .stdout.toString()
      .trim()
      .split('\n')
      .filter(Boolean);

  /** The server's children that are busy (using CPU over a short look); an idle one waits for its next statement. */
  const busyChildren = async (pid: number): Promise<string[]> => {
    const before = children(pid).map((child) => [child, cpuTicks(child)] as const);
    await sleep(300);
    return before.filter(([child, ticks]) => cpuTicks(child) - ticks >= 2).map(([child]) => child);
  };

  /** Our slow statements the database runs now; on SQLite, the server's busy children. */
  const running = async (pid: number): Promise<number> =>
    probe ? (await probe.list()).length : (await busyChildren(pid)).length;

  /** Whether what ran has stopped: none of our statements in the database (SQLite: the processes `busy` are gone). */
  const stopped = (busy: readonly string[]) => async (): Promise<boolean> =>
    probe ? (await probe.list()).length === 0 : busy.every((child) => !existsSync(`/proc/${child}`));

  /** What still runs, for a failure's message. */
  const stillRunning = async (busy: readonly string[]): Promise<string> =>
    JSON.stringify(probe ? await probe.list() : busy.filter((child) => existsSync(`/proc/${child}`)));

  /** Polls until `done`, for at most `ms`; the time it took, or Infinity. */
  const within = async (ms: number, done: () => Promise<boolean>): Promise<number> => {
    const start = performance.now();
    while (performance.now() - start < ms) {
      if (await done()) return performance.now() - start;
      await sleep(50);
    }
    return Number.POSITIVE_INFINITY;
  };

  /** Expects what ran (`busy` on SQLite) to stop within the bound, and names what still runs when it does not. */
  const expectStopped = async (busy: readonly string[]): Promise<void> => {
    if ((await within(FREED_WITHIN_MS, stopped(busy))) === Number.POSITIVE_INFINITY) {
      expect.fail(`still running ${FREED_WITHIN_MS} ms after the client left: ${await stillRunning(busy)}`);
    }
  };

  const start = (client: Client, caller: Caller, signal?: AbortSignal) => {
    const args = caller.tool === 'sql' ? { sql: slow.statement } : { table: 'slow_view' };
    const params = { name: caller.tool, arguments: args, ...(caller.sdk && { _meta: { 'bench.test/path': 'sdk' } }) };
    return client.callTool(params, { signal, timeout: 120_000 }).then(
      (result) => ({ answered: true, isError: result.isError === true }),
      () => ({ answered: false, isError: true }),
    );
  };

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_abandon');
    await loadShop(dbUrl);
    const engine = engineForUrl(dbUrl);
    slow = testFactsOf(engine).slow!;
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1, inProcess: true });
    try {
      await sql.raw(slow.view).execute(db);
    } finally {
      await close();
    }
    if (slow.running) {
      const { db: probeDb, close: closeProbe } = await engine.connect(dbUrl, { poolSize: 1 });
      const query = sql.raw(slow.running);
      probe = { list: async () => (await query.execute(probeDb)).rows, close: closeProbe };
    }
    // A statement timeout far beyond the test: only the client leaving can stop these statements.
    server = await startHttpServer(dbUrl, ['--sql', '--statement-timeout', '120000']);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await probe?.close();
  });

  it(`${CLIENTS} clients that leave mid-statement free the pool within ${FREED_WITHIN_MS / 1000} s, and nothing of theirs runs on`, async () => {
    const pid = server.process.pid!;
    const other = await connectClient('http', 'legacy', { dbUrl, endpoint: server.endpoint });
    const callers = Array.from({ length: CLIENTS }, (_, i) => CALLERS[i % CALLERS.length]!);
    const clients = await Promise.all(
      callers.map((c) => connectClient('http', c.era, { dbUrl, endpoint: server.endpoint })),
    );
    try {
      const calls = clients.map((client, i) => start(client, callers[i]!));
      // Mid-statement: the pool's 10 connections (SQLite: its process for caller-written SQL) are busy.
      expect(await within(15_000, async () => (await running(pid)) >= (probe ? 10 : 1))).toBeLessThan(15_000);
      await sleep(500);
      const busy = probe ? [] : await busyChildren(pid);

      await Promise.all(clients.map((c) => c.close()));
      const left = performance.now();
      const outcomes = await Promise.all(calls);
      // SQLite's view takes half a second or so: reads its two threads finished before the clients left were answered.
      expect(outcomes.filter((o, i) => o.answered && (probe || callers[i]!.tool === 'sql'))).toEqual([]);

      const stoppedMs = await within(FREED_WITHIN_MS, stopped(busy));
      // At once: every connection is free, none waits on a statement of the clients that left.
      const got = await callJson(other, 'get', { table: 'customers', key: 1 });
      const aggregated = await callJson(other, 'aggregate', { table: 'orders', aggregates: [{ fn: 'count' }] });
      const freed = performance.now() - left;
      console.log(
        `abandon: ${target.engine}: ${CLIENTS} clients left; their statements stopped after ${stoppedMs.toFixed(0)} ms, the pool served again after ${freed.toFixed(0)} ms`,
      );
      expect(stoppedMs, stoppedMs < FREED_WITHIN_MS ? '' : `still running: ${await stillRunning(busy)}`).toBeLessThan(
        FREED_WITHIN_MS,
      );
      expect(got.isError, JSON.stringify(got.data)).toBe(false);
      expect(aggregated.isError, JSON.stringify(aggregated.data)).toBe(false);
      expect(freed).toBeLessThan(FREED_WITHIN_MS);

      // The calls that were still waiting for a connection when their clients left never start.
      await sleep(1_000);
      expect(await running(pid)).toBe(0);
      expect(exitOf(server.process)).toBeUndefined();
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await other.close();
    }
  }, 60_000);

  // In this process, so that a full garbage collection can come between a call and its client
  // leaving. No direct tools: the SDK answers every call, and streams its 2025-era answers.
  describe.runIf(testFactsOf(engineOf(target)).slow?.running)('through the SDK, after a garbage collection', () => {
    let ctx: DatabaseContext;
    let own: Server;
    let url = '';
    beforeAll(async () => {
      ctx = await openDatabase({ url: dbUrl, statementTimeoutMs: 120_000 });
      ({ server: own, url } = await startHttp(createServerFactory(ctx), { host: '127.0.0.1', port: 0 }));
    });
    afterAll(async () => {
      own?.closeAllConnections();
      own?.close();
      await ctx?.close();
    });

    /** While `call` runs in the database: collects garbage, has its client leave, and expects it stopped. */
    const leaveAfterCollection = async (call: Promise<unknown>, leave: () => Promise<void>) => {
      expect(await within(15_000, async () => (await running(0)) >= 1)).toBeLessThan(15_000);
      // The SDK keeps no reference to the web Request whose signal would tell it the client left.
      collectGarbage();
      await leave();
      await call;
      await expectStopped([]);
    };

    it('a call whose client leaves still stops', async () => {
      const client = await connectClient('http', 'legacy', { dbUrl, endpoint: url });
      try {
        const call = start(client, { era: 'legacy', sdk: true, tool: 'query' });
        await leaveAfterCollection(call, () => client.close());
        expect((await call).answered).toBe(false);
      } finally {
        await client.close().catch(() => {});
      }
    });

    it('a 2025-03-26 batch whose client leaves stops too', async () => {
      const abort = new AbortController();
      const batch = batchRequest([{ name: 'query', arguments: { table: 'slow_view' } }]);
      const call = fetch(url, { method: 'POST', ...batch, signal: abort.signal }).then(
        () => 'answered',
        () => 'left',
      );
      await leaveAfterCollection(call, async () => abort.abort());
      expect(await call).toBe('left');
    });
  });

  it('stdio: a call the client cancels (notifications/cancelled) stops, and so does one the client leaves by closing stdin', async () => {
    const client = await connectClient('stdio', 'legacy', { dbUrl, args: ['--sql', '--statement-timeout', '120000'] });
    const pid = (client.transport as StdioClientTransport).pid!;
    try {
      const abort = new AbortController();
      const cancelled = start(client, { era: 'legacy', sdk: false, tool: 'sql' }, abort.signal);
      expect(await within(15_000, async () => (await running(pid)) >= 1)).toBeLessThan(15_000);
      const busy = probe ? [] : await busyChildren(pid);
      abort.abort();
      expect((await cancelled).answered).toBe(false);
      await expectStopped(busy);
      const got = await callJson(client, 'get', { table: 'customers', key: 2 });
      expect(got.isError, JSON.stringify(got.data)).toBe(false);

      const left = start(client, { era: 'legacy', sdk: false, tool: 'sql' });
      expect(await within(15_000, async () => (await running(pid)) >= 1)).toBeLessThan(15_000);
      const orphans = children(pid);
      await client.close();
      await left;
      await expectStopped(orphans);
    } finally {
      await client.close().catch(() => {});
    }
  }, 60_000);

  // SQLite waits for its write lock inside one step on the worker thread (busy_timeout), which cannot be interrupted.
  const waiting = testFactsOf(engineOf(target)).waitingWrite;
  it.skipIf(!waiting)(
    'a write whose client leaves while it waits for a row lock is cancelled, and never applies',
    async () => {
      const own = await startHttpServer(dbUrl, ['--allow-writes', '--statement-timeout', '120000']);
      const writer = await connectClient('http', 'legacy', { dbUrl, endpoint: own.endpoint });
      const { db, close } = await engineForUrl(dbUrl).connect(dbUrl, { poolSize: 2 });
      try {
        const count = async () => Number((await sql.raw<{ n: unknown }>(waiting!).execute(db)).rows[0]?.n);
        // Another session holds the row: the server's update waits on its lock.
        await db.connection().execute(async (holder) => {
          await sql`begin`.execute(holder);
          await sql`update customers set name = 'holder' where id = 1`.execute(holder);
          const write = writer
            .callTool({
              name: 'update',
              arguments: { table: 'customers', set: { name: 'abandoned' }, filter: 'id = 1' },
            })
            .catch(() => 'left');
          expect(await within(15_000, async () => (await count()) === 1)).toBeLessThan(15_000);
          await writer.close();
          expect(await write).toBe('left');
          expect(await within(FREED_WITHIN_MS, async () => (await count()) === 0)).toBeLessThan(FREED_WITHIN_MS);
          await sql`commit`.execute(holder);
        });
        // Once the lock is free, the abandoned write does not run after all.
        await sleep(500);
        const { rows } = await sql<{ name: string }>`select name from customers where id = 1`.execute(db);
        expect(rows[0]?.name).toBe('holder');
      } finally {
        await close();
        await writer.close().catch(() => {});
        await own.stop();
      }
    },
    60_000,
  );

  it('a server that is stopped (SIGTERM) cancels the statements it runs before it exits', async () => {
    const own = await startHttpServer(dbUrl, ['--sql', '--statement-timeout', '120000']);
    const pid = own.process.pid!;
    const clients = await Promise.all(
      CALLERS.map((c) => connectClient('http', c.era, { dbUrl, endpoint: own.endpoint })),
    );
    try {
      const calls = clients.map((client, i) => start(client, CALLERS[i]!));
      expect(await within(15_000, async () => (await running(pid)) >= (probe ? 4 : 1))).toBeLessThan(15_000);
      const orphans = children(pid);
      await own.stop();
      expect(exitOf(own.process)).toBe('code 0');
      await Promise.all(calls);
      await expectStopped(orphans);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await own.stop();
    }
  }, 60_000);
});
