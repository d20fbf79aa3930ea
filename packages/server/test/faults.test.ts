import { connect as netConnect } from 'node:net';
import { engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallRecord, countOutcomes, DATABASE_CALLS, Swarm, sleep } from './support/agents.js';
import { callJson, connectClient, exitOf, type HttpServer, modernRequest, startHttpServer } from './support/mcp.js';
import {
  type PrivateEngine,
  type PrivateServer,
  privateServerUnavailable,
  startPrivateServer,
} from './support/private-server.js';
import { processHandles, sessionProbe } from './support/probes.js';
import { loadShop } from './support/shop.js';

/**
 * Faults, end to end: the built bin over HTTP in front of a database server of the test's own
 * (started from the installed binaries on a free port), which the test stops and starts again
 * mid-run; and clients that vanish mid-request. The server must answer every call with a
 * result or a typed tool error, never exit, recover by itself, and keep no connection, socket
 * or pooled session of a client that went away.
 */

const POOL_SIZE = 10;
/** How long the database stays down while agents keep calling. */
const OUTAGE_MS = 2_500;
/** The most a recovery may take once the database accepts connections again. */
const RECOVERY_BOUND_MS = 10_000;

const ENGINES: { engine: PrivateEngine; unavailable: string | undefined }[] = (['postgres', 'mariadb'] as const).map(
  (engine) => ({ engine, unavailable: privateServerUnavailable(engine) }),
);
for (const { engine, unavailable } of ENGINES) {
  if (unavailable) console.warn(`faults.test: skipping ${engine}: ${unavailable}`);
}

describe.each(ENGINES)('$engine', ({ engine, unavailable }) => {
  let database: PrivateServer;
  let dbUrl = '';
  let http: HttpServer;
  let port = 0;

  beforeAll(async () => {
    if (unavailable) return;
    database = await startPrivateServer(engine);
    dbUrl = await freshDatabase({ engine, baseUrl: database.baseUrl }, 'bench_faults');
    await loadShop(dbUrl);
    const { db, close } = await engineForUrl(dbUrl).connect(dbUrl, { poolSize: 1 });
    // a view whose every read takes 1.5 s: a slow statement without a big table
    await sql.raw(testFactsOf(engineForUrl(dbUrl)).shortSlowView!).execute(db);
    await close();
    http = await startHttpServer(dbUrl, ['--pool-size', String(POOL_SIZE)]);
    port = Number(new URL(http.endpoint).port);
  });
  afterAll(async () => {
    await http?.stop();
    await database?.destroy();
  });

  it.skipIf(unavailable)('survives a restart while its pool is idle, and the next call succeeds', async () => {
    const client = await connectClient('http', 'modern', { dbUrl, endpoint: http.endpoint });
    try {
      // fill the pool with idle connections, which the shutdown then cuts
      const warm = await Promise.all(
        Array.from({ length: 20 }, () => callJson(client, 'get', { table: 'orders', key: 1 })),
      );
      expect(warm.every((r) => !r.isError)).toBe(true);
      const probe = await sessionProbe(dbUrl);
      const idle = await probe.sessions();
      await probe.close();
      expect(idle.total).toBeGreaterThan(0);
      expect(idle.busy).toBe(0);
      await database.stop();
      await sleep(300);
      expect(exitOf(http.process)).toBeUndefined();
      await database.start();
      const first = await callJson(client, 'get', { table: 'orders', key: 1 });
      expect(first.isError, JSON.stringify(first.data)).toBe(false);
      const after = await Promise.all(
        Array.from({ length: 20 }, () => callJson(client, 'get', { table: 'orders', key: 2 })),
      );
      expect(after.filter((r) => r.isError).map((r) => r.data)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it.skipIf(unavailable)('reports an outage as tool errors, never exits, and recovers by itself', async () => {
    const pid = http.process.pid;
    const swarm = await Swarm.start(http.endpoint, 8, 10);
    await sleep(1_000);
    const stopAt = performance.now();
    await database.stop();
    const stoppedAt = performance.now();
    await sleep(OUTAGE_MS);
    const startAt = performance.now();
    await database.start();
    const readyAt = performance.now();
    // every agent succeeds again, or the bound passes
    const recovered = () =>
      new Set(swarm.records.filter((r) => r.start >= readyAt && r.outcome === 'ok').map((r) => r.agent)).size;
    while (recovered() < 8 && performance.now() - readyAt < RECOVERY_BOUND_MS) await sleep(50);
    await sleep(500);
    await swarm.stop();

    const records = swarm.records;
    const before = records.filter((r) => r.end < stopAt);
    const down = records.filter((r) => r.start > stoppedAt && r.end < startAt);
    const recovery = recoveryMs(records, readyAt);
    console.log(
      `faults: ${engine}: ${records.length} calls ${JSON.stringify(countOutcomes(records))}; ` +
        `${down.length} while down ${JSON.stringify(countOutcomes(down))}; ` +
        `stop took ${(stoppedAt - stopAt).toFixed(0)} ms, restart ${(readyAt - startAt).toFixed(0)} ms; ` +
        `first success ${recovery.first.toFixed(0)} ms and every agent ${recovery.all.toFixed(0)} ms after the database was ready`,
    );

    // no call failed below the tool, and every failure was the typed outage error
    expect(records.filter((r) => r.outcome === 'thrown')).toEqual([]);
    expect(records.filter((r) => r.outcome !== 'ok' && r.outcome !== 'database_unavailable')).toEqual([]);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((r) => r.outcome === 'ok')).toBe(true);
    expect(down.length).toBeGreaterThan(0);
    expect(down.every((r) => r.outcome === 'database_unavailable')).toBe(true);
    expect(down[0]!.detail).toMatch(/Cannot reach the (PostgreSQL|MySQL\/MariaDB) server/);
    // the same process, still serving, and every agent recovered within the bound
    expect(exitOf(http.process)).toBeUndefined();
    expect(http.process.pid).toBe(pid);
    expect(recovered()).toBe(8);
    expect(recovery.all).toBeLessThan(RECOVERY_BOUND_MS);
  });

  it.skipIf(unavailable)('keeps nothing of clients killed mid-request', async () => {
    const pid = http.process.pid!;
    const probe = await sessionProbe(dbUrl);
    try {
      // warm up: open the whole pool with slow statements, then measure what the process holds
      const client = await connectClient('http', 'modern', { dbUrl, endpoint: http.endpoint });
      const warm = await Promise.all(
        Array.from({ length: POOL_SIZE }, () => callJson(client, 'query', { table: 'slow_view' })),
      );
      expect(warm.filter((r) => r.isError).map((r) => r.data)).toEqual([]);
      await client.close();
      const baseline = processHandles(pid, port);

      // 60 clients vanish: mid-body, while their slow statement runs, and right after sending
      const killed = new Set(
        await Promise.all(
          Array.from({ length: 60 }, (_, i) => {
            if (i % 3 === 0)
              return vanish(port, toolCall('query', { table: 'orders' }), { bodyBytes: 20, afterMs: 50 });
            if (i % 3 === 1) return vanish(port, toolCall('query', { table: 'slow_view' }), { afterMs: 200 });
            return vanish(port, toolCall(...DATABASE_CALLS[i % DATABASE_CALLS.length]!), { afterMs: 0 });
          }),
        ),
      );
      expect(exitOf(http.process)).toBeUndefined();
      const held = () => [...processHandles(pid, port).peerPorts].filter((p) => killed.has(p)).length;
      const heldRightAfter = held();
      const busyRightAfter = (await probe.sessions()).busy;

      // the statements of vanished clients finish or are cancelled (MySQL's KILL QUERY comes from a
      // connection of its own, closed once it answers); then the server holds what it held before
      await until(
        async () =>
          held() === 0 && (await probe.sessions()).busy === 0 && processHandles(pid, port).fds <= baseline.fds + 2,
        15_000,
      );
      const after = processHandles(pid, port);
      const sessions = await probe.sessions();
      console.log(
        `faults: ${engine}: 60 clients killed; right after, ${heldRightAfter} of their connections open and ${busyRightAfter} statements running; ` +
          `then ${held()} connections, ${sessions.total} database sessions (${sessions.busy} busy), ` +
          `${after.fds} fds (before: ${baseline.fds}), RSS ${mb(baseline.rssBytes)} -> ${mb(after.rssBytes)} MB`,
      );
      expect(held()).toBe(0);
      expect(sessions.busy).toBe(0);
      expect(sessions.total).toBeLessThanOrEqual(POOL_SIZE);
      expect(after.fds).toBeLessThanOrEqual(baseline.fds + 2);

      // and the pool serves new clients at full width
      const again = await connectClient('http', 'modern', { dbUrl, endpoint: http.endpoint });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => callJson(again, 'get', { table: 'orders', key: i + 1 })),
      );
      await again.close();
      expect(results.filter((r) => r.isError).map((r) => r.data)).toEqual([]);
    } finally {
      await probe.close();
    }
  });
});

/**
 * One server over two databases (`--url NAME=URL`): the one that goes away answers with the typed
 * outage error and recovers; the other one serves every call meanwhile, as if nothing happened.
 */
describe.each(ENGINES)('$engine beside SQLite, in one server', ({ engine, unavailable }) => {
  let database: PrivateServer;
  let http: HttpServer;

  beforeAll(async () => {
    if (unavailable) return;
    database = await startPrivateServer(engine);
    const remote = await freshDatabase({ engine, baseUrl: database.baseUrl }, 'bench_faults_pair');
    const sqlite = liveTargets().find((t) => t.engine === 'sqlite')!;
    const local = await freshDatabase(sqlite, 'bench_faults_pair');
    await loadShop(remote);
    await loadShop(local);
    http = await startHttpServer(`local=${local}`, ['--url', `remote=${remote}`, '--pool-size', '4']);
  });
  afterAll(async () => {
    await http?.stop();
    await database?.destroy();
  });

  it.skipIf(unavailable)('keeps serving the other database through an outage of one', async () => {
    const pid = http.process.pid;
    const local = await Swarm.start(http.endpoint, 4, 10, 'local');
    const remote = await Swarm.start(http.endpoint, 4, 10, 'remote');
    await sleep(800);
    await database.stop();
    const stoppedAt = performance.now();
    await sleep(OUTAGE_MS);
    const startAt = performance.now();
    await database.start();
    const readyAt = performance.now();
    const recovered = () => remote.records.some((r) => r.start >= readyAt && r.outcome === 'ok');
    while (!recovered() && performance.now() - readyAt < RECOVERY_BOUND_MS) await sleep(50);
    await sleep(300);
    await Promise.all([local.stop(), remote.stop()]);

    const during = (records: readonly CallRecord[]) => records.filter((r) => r.start > stoppedAt && r.end < startAt);
    console.log(
      `faults: ${engine} beside SQLite: remote ${JSON.stringify(countOutcomes(remote.records))}, ` +
        `${during(remote.records).length} while down; local ${JSON.stringify(countOutcomes(local.records))}, ` +
        `${during(local.records).length} while the other was down`,
    );
    // the database that stayed up: every call answered, before, during and after
    expect(local.records.filter((r) => r.outcome !== 'ok')).toEqual([]);
    expect(during(local.records).length).toBeGreaterThan(20);
    // the one that went away: typed outage errors only, then success again
    const downRemote = during(remote.records);
    expect(downRemote.length).toBeGreaterThan(0);
    expect(downRemote.every((r) => r.outcome === 'database_unavailable')).toBe(true);
    expect(remote.records.filter((r) => r.outcome !== 'ok' && r.outcome !== 'database_unavailable')).toEqual([]);
    expect(recovered()).toBe(true);
    expect(exitOf(http.process)).toBeUndefined();
    expect(http.process.pid).toBe(pid);
  });
});

/** Time from the database being ready to the first success of any agent, and of every agent. */
function recoveryMs(records: readonly CallRecord[], readyAt: number): { first: number; all: number } {
  const firstOk = new Map<number, number>();
  for (const r of records) {
    if (r.start < readyAt || r.outcome !== 'ok') continue;
    firstOk.set(r.agent, Math.min(firstOk.get(r.agent) ?? Number.POSITIVE_INFINITY, r.end - readyAt));
  }
  const times = [...firstOk.values()];
  return { first: Math.min(...times), all: Math.max(...times) };
}

/** A complete 2026-07-28 tools/call request, as raw HTTP. */
function toolCall(name: string, args: Record<string, unknown>): { head: string; body: string } {
  const { headers, body } = modernRequest('tools/call', 1, { name, arguments: args });
  const head = [
    'POST /mcp HTTP/1.1',
    'Host: 127.0.0.1',
    ...Object.entries(headers).map(([header, value]) => `${header}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    '',
  ].join('\r\n');
  return { head, body };
}

/**
 * Sends a request (all of it, or only `bodyBytes` of its body), then destroys the socket
 * `afterMs` later, before reading any answer: a client killed mid-request. Resolves with the
 * client's port once the socket is closed.
 */
function vanish(
  port: number,
  request: { head: string; body: string },
  options: { bodyBytes?: number; afterMs: number },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1', () => {
      const localPort = socket.localPort!;
      const body = options.bodyBytes === undefined ? request.body : request.body.slice(0, options.bodyBytes);
      socket.on('close', () => resolve(localPort));
      socket.write(request.head + body, () => setTimeout(() => socket.destroy(), options.afterMs));
    });
    socket.on('error', reject);
  });
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition()) && performance.now() < deadline) await sleep(50);
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
