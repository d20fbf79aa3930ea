/**
 * `serve`: our server as people start it beside another server to compare them; one process
 * unless told (as `mcp-db-server`), and `--workers` over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { type Peer, startOurs } from './support/peers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-serve-'));
const db = `sqlite:${join(dir, 'shop.db')}`;
const run = (args: string[]) => runCli(args, { cwd: dir, timeoutMs: 120_000 });

describe('serve --workers', () => {
  let server: Peer | undefined;

  beforeAll(async () => {
    const seeded = await run(['seed', '--db', db, '--scale', '0.002']);
    expect(seeded.code, seeded.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves one port from two worker processes, and agents get their answers', async () => {
    server = await startOurs(db, { workers: 2 });
    const r = await run([
      'run',
      '--target',
      server.url,
      '--workloads',
      'point-read',
      '--agents',
      '4',
      '--duration',
      '1s',
      '--warmup',
      '200ms',
      '--check-calls',
      '0',
      '--format',
      'json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result: ResultFile = resultFile.parse(JSON.parse(r.stdout));
    const step = result.steps.find((s) => s.workload === 'point-read');
    expect(step?.calls).toBeGreaterThan(0);
    expect(step?.errors).toEqual({});
  }, 120_000);

  it('refuses --workers over --stdio', async () => {
    const r = await run(['serve', '--db', db, '--stdio', '--workers', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('mcp-db-bench: --workers needs HTTP: over --stdio the host talks to one process');
  });
});
