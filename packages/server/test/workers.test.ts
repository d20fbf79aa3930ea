import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autoWorkerCount, restartDelayMs, workersOption } from '../src/transports/cluster.js';
import { availableCores } from '../src/transports/cpu-quota.js';
import { callJson, connectClient, type Era, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/** The worker processes of a server started with --workers: pids of its children. */
const children = (pid: number): string[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
  } catch {
    return []; // ps exits 1 when it lists none
  }
};

/**
 * `--workers 2`: two processes serve one port, each with its own SQLite connection; both eras
 * stay correct over many connections (the primary spreads connections over the workers), and
 * stopping the primary stops them all.
 */
describe('--workers', () => {
  let dir: string;
  let server: HttpServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-workers-'));
    const url = `sqlite:${join(dir, 'shop.db')}`;
    await loadShop(url);
    server = await startHttpServer(url, ['--workers', '2']);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs two worker processes behind one endpoint', () => {
    expect(children(server.process.pid!)).toHaveLength(2);
  });

  for (const era of ['modern', 'legacy'] as Era[]) {
    it(`answers concurrent ${era}-era calls from several clients, each correctly`, async () => {
      const clients: Client[] = await Promise.all(
        Array.from({ length: 6 }, () => connectClient('http', era, { dbUrl: '', endpoint: server.endpoint })),
      );
      try {
        const answers = await Promise.all(
          clients.flatMap((c, i) =>
            [1, 2, 3].map((k) => callJson(c, 'get', { table: 'orders', key: ((i + k) % 5) + 1 })),
          ),
        );
        let n = 0;
        for (const [i] of clients.entries()) {
          for (const k of [1, 2, 3]) {
            const a = answers[n++]!;
            expect(a.isError).toBe(false);
            expect((a.data as { row: { id: number } }).row.id).toBe(((i + k) % 5) + 1);
          }
        }
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    });
  }

  it('honours a 2025-era session on every worker, and a DELETE ends it on all of them', async () => {
    // Each request on a new connection: the primary hands connections to the workers in turn.
    const send = (method: string, body: string | undefined, session?: string) =>
      new Promise<{ status: number; session?: string }>((resolve, reject) => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        };
        if (session) headers['mcp-session-id'] = session;
        const req = request(server.endpoint, { method, headers, agent: false }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode!, session: res.headers['mcp-session-id'] as string | undefined }),
          );
        });
        req.on('error', reject);
        req.end(body);
      });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'workers-test', version: '0' } },
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await send('POST', initialize)).session!);
    // A session id starts with the worker that issued it: both workers issued some.
    expect(new Set(ids.map((id) => id.split('.')[0])).size).toBe(2);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const id of ids) for (let i = 0; i < 3; i++) expect((await send('POST', ping, id)).status).toBe(200);
    for (const id of ids) expect((await send('DELETE', undefined, id)).status).toBe(200);
    for (const id of ids) for (let i = 0; i < 3; i++) expect((await send('POST', ping, id)).status).toBe(404);
    // An id no worker of this server signed is unknown to all of them.
    const forged = `${ids[0]!.slice(0, ids[0]!.lastIndexOf('.'))}.${'A'.repeat(22)}`;
    for (let i = 0; i < 4; i++) expect((await send('POST', ping, forged)).status).toBe(404);
  });

  it('stops every worker when the primary is stopped', async () => {
    const workers = children(server.process.pid!);
    await server.stop();
    for (const pid of workers) expect(() => process.kill(Number(pid), 0)).toThrow();
  });
});

/**
 * A worker that dies is replaced; a replacement that cannot start (here its database file is
 * gone) is retried after a doubling delay rather than in a fork loop, and once the fault passes
 * the slot serves again.
 */
describe('--workers, a replacement that cannot start', () => {
  it('waits 100 ms, 200, 400 ... between starts, never more than 30 s', () => {
    expect([0, 1, 2, 3, 4, 9, 20].map(restartDelayMs)).toEqual([0, 100, 200, 400, 800, 25_600, 30_000]);
  });

  it('is retried with backoff while the database is gone, and serves again once it is back', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-workers-restart-'));
    const file = join(dir, 'shop.db');
    await loadShop(`sqlite:${file}`);
    const server = await startHttpServer(`sqlite:${file}`, ['--workers', '2']);
    try {
      const [victim] = children(server.process.pid!);
      renameSync(file, `${file}.away`);
      process.kill(Number(victim), 'SIGKILL');
      const delays = () =>
        [...server.stderr().matchAll(/exited before it listened .*in (\d+) ms/g)].map((m) => Number(m[1]));
      for (let i = 0; i < 300 && delays().length < 3; i++) await new Promise((r) => setTimeout(r, 50));
      // each failed start waits twice as long as the one before (without the backoff: none at all)
      expect(delays().slice(0, 3)).toEqual([100, 200, 400]);
      renameSync(`${file}.away`, file);
      for (let i = 0; i < 200 && !/listens again/.test(server.stderr()); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(server.stderr()).toMatch(/listens again/);
      expect(children(server.process.pid!)).toHaveLength(2);
      // both workers answer: each request on a new connection, handed out in turn
      for (let i = 0; i < 4; i++) {
        const client = await connectClient('http', 'modern', { dbUrl: '', endpoint: server.endpoint });
        expect((await callJson(client, 'get', { table: 'customers', key: 1 })).isError).toBe(false);
        await client.close();
      }
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** `--http` alone (what users run): one worker per core but one; one process where the engine allows only one. */
describe('--workers auto, the HTTP default', () => {
  it('is one worker per core but one, at least one', () => {
    expect([1, 2, 3, 4, 16].map(autoWorkerCount)).toEqual([1, 1, 2, 3, 15]);
  });

  it('is what the server does when neither --workers nor MCP_DB_WORKERS is given', () => {
    expect(workersOption(['--url', 'sqlite:x', '--http'], {})).toBe('auto');
    expect(workersOption(['--http'], { MCP_DB_WORKERS: '3' })).toBe(3);
    expect(workersOption(['--http', '--workers=2'], { MCP_DB_WORKERS: '3' })).toBe(2);
  });

  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-workers-auto-'));
    await loadShop(`sqlite:${join(dir, 'shop.db')}`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`forks that many workers, none when it is one (${availableCores()} cores here)`, async () => {
    const server = await startHttpServer(`sqlite:${join(dir, 'shop.db')}`, ['--workers', 'auto']);
    try {
      const workers = autoWorkerCount(availableCores());
      expect(children(server.process.pid!)).toHaveLength(workers > 1 ? workers : 0);
    } finally {
      await server.stop();
    }
  });

  it('serves PGlite from one process, since its data directory opens in one process at a time', {
    timeout: 60_000,
  }, async () => {
    const server = await startHttpServer('pglite::memory:', ['--workers', 'auto']);
    try {
      expect(children(server.process.pid!)).toHaveLength(0);
      const client = await connectClient('http', 'legacy', { dbUrl: '', endpoint: server.endpoint });
      expect((await callJson(client, 'list_tables', {})).isError).toBe(false);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
