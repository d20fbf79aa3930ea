import { engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { engineOf, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOutcomes, latencyQuantile, Swarm, sleep } from './support/agents.js';
import { exitOf, type HttpServer, startHttpServer } from './support/mcp.js';
import { sessionProbe } from './support/probes.js';
import { loadShop } from './support/shop.js';

/**
 * Connection pools under more agents than connections: 200 real MCP clients against the bin
 * with its default pool of 10, on every engine the issue names. Calls queue for a connection
 * instead of failing, the database never sees more sessions than the pool allows, and a wait
 * that cannot be served is cut off with a tool error instead of hanging.
 */

const AGENTS = 200;
const DEFAULT_POOL_SIZE = 10;
const RUN_MS = 3_000;

// an engine open in one process at a time (PGlite) serves on one connection: no pool to share
const targets = liveTargets().filter((t) => !engineOf(t).oneProcess);

describe.each(targets)('$engine', (target) => {
  let dbUrl = '';
  let http: HttpServer;

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_faults_pool');
    await loadShop(dbUrl);
    http = await startHttpServer(dbUrl);
  });
  afterAll(async () => {
    await http?.stop();
  });

  it(`${AGENTS} concurrent agents share the default pool without a single error`, async () => {
    const probe = testFactsOf(engineForUrl(dbUrl)).sessions ? await sessionProbe(dbUrl) : undefined;
    const swarm = await Swarm.start(http.endpoint, AGENTS);
    let maxSessions = 0;
    try {
      const end = performance.now() + RUN_MS;
      while (performance.now() < end) {
        if (probe) maxSessions = Math.max(maxSessions, (await probe.sessions()).total);
        await sleep(100);
      }
    } finally {
      await swarm.stop();
      await probe?.close();
    }
    const records = swarm.records;
    console.log(
      `pool: ${target.engine}: ${AGENTS} agents, ${records.length} calls in ${RUN_MS} ms ${JSON.stringify(countOutcomes(records))}; ` +
        `latency p50 ${latencyQuantile(records, 0.5).toFixed(0)} ms, p99 ${latencyQuantile(records, 0.99).toFixed(0)} ms, ` +
        `max ${latencyQuantile(records, 1).toFixed(0)} ms` +
        (probe ? `; at most ${maxSessions} database sessions` : ''),
    );
    expect(records.filter((r) => r.outcome !== 'ok').slice(0, 5)).toEqual([]);
    expect(new Set(records.map((r) => r.agent)).size).toBe(AGENTS);
    if (probe) {
      expect(maxSessions).toBeGreaterThan(1);
      expect(maxSessions).toBeLessThanOrEqual(DEFAULT_POOL_SIZE);
    }
    expect(exitOf(http.process)).toBeUndefined();
  });

  // SQLite has one connection and no pool: better-sqlite3 runs each statement to completion
  // before the next, so there is no wait to bound beyond the statements ahead in line.
  const hold = testFactsOf(engineOf(target)).sleep;
  if (!hold) return;

  it('a wait for a busy pool is bounded, and the pool stays usable', async () => {
    const engine = engineForUrl(dbUrl);
    // one connection, held for 2 s by a slow statement; others may wait 0.5 s for it
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1, poolWaitMs: 500 });
    try {
      const slow = hold(2).execute(db);
      await sleep(200);
      const started = performance.now();
      const error = await sql`select 1 as one`.execute(db).then(
        () => undefined,
        (e: unknown) => e,
      );
      const waited = performance.now() - started;
      const mapped = engine.mapError(error);
      expect(mapped?.code).toBe('database_unavailable');
      expect(mapped?.message).toMatch(/No database connection became free in time/);
      // cut off by the bound, well before the slow statement let go of the connection
      expect(waited).toBeGreaterThanOrEqual(450);
      expect(waited).toBeLessThan(1_500);
      await slow;
      // the abandoned wait took nothing with it: the one connection serves the next statement
      const { rows } = await sql<{ one: unknown }>`select 1 as one`.execute(db);
      expect(Number(rows[0]?.one)).toBe(1);
    } finally {
      await close();
    }
  });

  it('a wait shorter than the bound queues and succeeds', async () => {
    const engine = engineForUrl(dbUrl);
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1, poolWaitMs: 5_000 });
    try {
      const slow = hold(1).execute(db);
      await sleep(200);
      const started = performance.now();
      const { rows } = await sql<{ one: unknown }>`select 1 as one`.execute(db);
      expect(Number(rows[0]?.one)).toBe(1);
      // it waited for the slow statement's connection
      expect(performance.now() - started).toBeGreaterThanOrEqual(500);
      await slow;
    } finally {
      await close();
    }
  });
});
