import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type Era, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/** The worker processes of a server started with --workers: pids of its children. */
const children = (pid: number) =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);

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
      const clients: Client[] = await Promise.all(Array.from({ length: 6 }, () => connectClient('http', era, { dbUrl: '', endpoint: server.endpoint })));
      try {
        const answers = await Promise.all(clients.flatMap((c, i) => [1, 2, 3].map((k) => callJson(c, 'get', { table: 'orders', key: ((i + k) % 5) + 1 }))));
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

  it('stops every worker when the primary is stopped', async () => {
    const workers = children(server.process.pid!);
    await server.stop();
    for (const pid of workers) expect(() => process.kill(Number(pid), 0)).toThrow();
  });
});
