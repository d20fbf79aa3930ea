import { spawnSync } from 'node:child_process';
import { engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { engineOf, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * Statement timeouts cancel the statement inside the database, not merely stop waiting for
 * it; and while one statement runs long, the server keeps answering everyone else.
 */
const TIMEOUT_MS = 1000;

// The slow statement goes through the sql tool, which engines without a read-only mode (SQL Server)
// lack; an engine that cannot cancel a statement has nothing to test here.
const targets = liveTargets().filter((t) => testFactsOf(engineOf(t)).slow && engineOf(t).cancelsStatements);

describe.each(targets)('$engine', (target) => {
  let dbUrl = '';
  let server: HttpServer;
  let slowClient: Client;
  let client: Client;

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_timeouts');
    await loadShop(dbUrl);
    server = await startHttpServer(dbUrl, ['--sql', '--statement-timeout', String(TIMEOUT_MS)]);
    [slowClient, client] = await Promise.all([
      connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint }),
      connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([slowClient?.close(), client?.close()]);
    await server?.stop();
  });

  it('cancels a slow statement in the database, answers timeout, and keeps serving meanwhile', async () => {
    const slow = testFactsOf(engineForUrl(dbUrl)).slow!;
    let slowDone = false;
    const started = Date.now();
    const pending = callJson(slowClient, 'sql', { sql: slow.statement }).finally(() => {
      slowDone = true;
    });

    // Other calls are answered while the slow statement runs: the event loop is free.
    await new Promise((resolve) => setTimeout(resolve, 100));
    let servedMeanwhile = 0;
    for (let i = 1; i <= 10 && !slowDone; i++) {
      const got = await callJson(client, 'get', { table: 'customers', key: i });
      expect(got.isError, JSON.stringify(got.data)).toBe(false);
      if (!slowDone) servedMeanwhile++;
    }
    expect(servedMeanwhile).toBeGreaterThanOrEqual(5);

    const outcome = await pending;
    const elapsed = Date.now() - started;
    expect(outcome.isError, JSON.stringify(outcome.data)).toBe(true);
    expect((outcome.data as { error: { code: string } }).error.code).toBe('timeout');
    // Well short of the statement's own 30 s (or the count's many seconds).
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 5000);

    if (slow.running) {
      // Gone from the engine's own process list: cancelled there, not abandoned.
      const engine = engineForUrl(dbUrl);
      const { db, close } = await engine.connect(dbUrl, { poolSize: 1 });
      try {
        let running: unknown[] = [];
        for (let i = 0; i < 20; i++) {
          running = (await sql.raw(slow.running).execute(db)).rows;
          if (running.length === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(running).toEqual([]);
      } finally {
        await close();
      }
    }

    if (!slow.running) {
      // SQLite runs caller-written SQL in a child process of the server: it must be gone.
      let children = '?';
      for (let i = 0; i < 20 && children !== ''; i++) {
        children = spawnSync('pgrep', ['-P', String(server.process.pid)])
          .stdout.toString()
          .trim();
        if (children !== '') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(children).toBe('');
    }

    // And the server goes on: the same kind of call works again at once.
    const after = await callJson(slowClient, 'sql', { sql: 'select count(*) as n from customers' });
    expect(after.isError, JSON.stringify(after.data)).toBe(false);
  }, 30_000);
});
