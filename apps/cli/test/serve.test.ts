/**
 * `serve`: our server as people start it beside another server to compare them; one process
 * unless told (as `mcp-db-server`), and `--workers` over HTTP.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { parseReady } from '@mcp-db-bench/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/cli.js';
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

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'stopped by %s, it exits %i as every command does',
    async (signal, expected) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--db', db, '--port', '0', '--workers', '1'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await new Promise<void>((resolve, reject) => {
        const seen = (chunk: Buffer) => {
          output += chunk;
          if (parseReady(output) !== undefined) resolve();
        };
        child.stdout.on('data', seen);
        child.stderr.on('data', seen);
        void exited.then(() => reject(new Error(`serve exited before it listened: ${output}`)));
      });
      child.kill(signal);
      expect(await exited, output).toBe(expected);
    },
    60_000,
  );

  it('refuses --workers over --stdio', async () => {
    const r = await run(['serve', '--db', db, '--stdio', '--workers', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('mcp-db-bench: --workers needs HTTP: over --stdio the host talks to one process');
  });
});
