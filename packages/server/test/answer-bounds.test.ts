import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { engineOf, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from './support/agents.js';
import { callJson, connectClient, exitOf, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * An answer larger than the server may return is stopped while it is read, on every live engine:
 * through the real sql tool and a real MCP client, against the built bin in a process of its own,
 * whose resident memory is read from /proc. Before, one 600 MiB value on PostgreSQL ended the
 * process (ERR_STRING_TOO_LONG while pg parsed the row), and four 300 MiB ones took it from 148 MB
 * to 1,920 MB before the size check refused them.
 */

/** the server's default --max-response-bytes (1 MiB): rows are stopped past twice it as sent */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const PARALLEL = 4;
/**
 * What PARALLEL answers being refused may add to the server's resident memory: per call, the
 * rows read up to the budget (2 MiB), the driver's buffer for them (up to twice that) and their
 * strings, 8 times the limit in all; and 64 MiB for the rest (heap growth, the clients' exchanges).
 * Measured: see docs/safety.md#answers-are-bounded-while-they-are-read.
 */
const GROWTH_BOUND_MB = (PARALLEL * 8 * MAX_RESPONSE_BYTES) / 2 ** 20 + 64;

const targets = liveTargets().filter((t) => testFactsOf(engineOf(t)).largeAnswer && engineOf(t).readOnlyStatement);

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
}

/** Starts the peak (VmHWM) over from the resident size now; false where the kernel does not let us. */
function resetPeak(pid: number): boolean {
  const file = `/proc/${pid}/clear_refs`;
  if (!existsSync(file)) return false;
  try {
    writeFileSync(file, '5');
    return true;
  } catch {
    return false;
  }
}

/** The processes `pid` started (SQLite's query process), which the server's own figure leaves out. */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
}

/** Waits until the resident size of `pid` stops moving (2 MB over a quarter second), at least 2 s and at most 10. */
async function settled(pid: number): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const before = statusKb(pid, 'VmRSS');
    await sleep(250);
    if (i >= 8 && Math.abs(statusKb(pid, 'VmRSS') - before) < 2048) return;
  }
}

describe.each(targets)('$engine', (target) => {
  let dbUrl = '';
  let server: HttpServer;
  let clients: Client[] = [];
  const large = testFactsOf(engineOf(target)).largeAnswer!;

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_answers');
    await loadShop(dbUrl);
    server = await startHttpServer(dbUrl, ['--sql']);
    clients = await Promise.all(
      Array.from({ length: PARALLEL }, () => connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint })),
    );
    // A statement of the same shape first, with an empty answer (MariaDB: one row, refused): the
    // first parse of such a statement in PostgreSQL's parser thread (the sql guard's) is followed by
    // half a gigabyte for a second or so while V8 compiles the parser's WebAssembly, which has
    // nothing to do with answers and would otherwise land in the figures below.
    await callJson(clients[0]!, 'sql', { sql: large.statement(0) });
    await settled(server.process.pid!);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await server?.stop();
  });

  const refused = (outcome: { isError: boolean; data: Record<string, unknown> }) => {
    expect(outcome.isError, JSON.stringify(outcome.data).slice(0, 500)).toBe(true);
    const { code, message } = (outcome.data as { error: { code: string; message: string } }).error;
    expect(code).toBe('limit_exceeded');
    return message;
  };

  /** The server still serves: /livez answers, and the next calls (sql and a read tool) succeed. */
  const stillServing = async () => {
    expect(exitOf(server.process)).toBeUndefined();
    const livez = await fetch(new URL('/livez', server.endpoint));
    expect(livez.status).toBe(200);
    const one = await callJson(clients[0]!, 'sql', { sql: 'select 1 as one' });
    expect(one.isError, JSON.stringify(one.data)).toBe(false);
    expect(one.data).toMatchObject({ rows: [{ one: 1 }] });
    const got = await callJson(clients[1]!, 'get', { table: 'customers', key: 1 });
    expect(got.isError, JSON.stringify(got.data)).toBe(false);
  };

  /** The statement no longer runs in the database (where the engine lists what runs). */
  const stoppedInDatabase = async () => {
    if (!large.running) return;
    const { db, close } = await engineForUrl(dbUrl).connect(dbUrl, { poolSize: 1 });
    try {
      let running: unknown[] = [];
      for (let i = 0; i < 50; i++) {
        running = (await sql.raw(large.running).execute(db)).rows;
        if (running.length === 0) break;
        await sleep(100);
      }
      expect(running).toEqual([]);
    } finally {
      await close();
    }
  };

  it('refuses a 600 MiB answer with a clear error and goes on serving', async () => {
    const message = refused(await callJson(clients[0]!, 'sql', { sql: large.statement(600), limit: 1000 }));
    expect(message).toMatch(/--max-response-bytes|prefix of it or its length/);
    await stillServing();
    await stoppedInDatabase();
  }, 120_000);

  it(`refuses ${PARALLEL} answers of 300 MiB at once within a bound on resident memory`, async () => {
    const pid = server.process.pid!;
    const before = statusKb(pid, 'VmRSS');
    const exact = resetPeak(pid);
    const children = childrenOf(pid);
    for (const child of children) resetPeak(child);
    let sampled = before;
    const sampler = setInterval(() => {
      sampled = Math.max(sampled, statusKb(pid, 'VmRSS'));
    }, 5);
    try {
      const outcomes = await Promise.all(
        clients.map((client) => callJson(client, 'sql', { sql: large.statement(300), limit: 1000 })),
      );
      for (const outcome of outcomes) refused(outcome);
    } finally {
      clearInterval(sampler);
    }
    const peak = Math.max(sampled, exact ? statusKb(pid, 'VmHWM') : 0);
    const growthMb = (peak - before) / 1024;
    console.log(
      `${target.engine}: ${PARALLEL} x 300 MiB refused; server RSS ${Math.round(before / 1024)} MB before, ` +
        `peak ${Math.round(peak / 1024)} MB (+${growthMb.toFixed(1)} MB, bound +${GROWTH_BOUND_MB} MB${exact ? '' : ', sampled'})`,
    );
    for (const child of children) {
      console.log(`${target.engine}: child process ${child} peak ${Math.round(statusKb(child, 'VmHWM') / 1024)} MB`);
    }
    expect(growthMb).toBeLessThan(GROWTH_BOUND_MB);
    await stillServing();
    await stoppedInDatabase();
  }, 180_000);
});
