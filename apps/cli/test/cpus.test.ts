import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import { seed } from '@mcp-db-bench/dataset';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-cpus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const taskset = (() => {
  if (platform() !== 'linux') return 'not Linux';
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'no taskset (apt-get install util-linux)';
  }
})();
if (taskset) console.warn(`skipping the pinned run: ${taskset}`);

describe('run --server-cpus / --client-cpus', () => {
  it.skipIf(taskset !== undefined)(
    'pins the server it starts and records its CPU per call, read from /proc',
    async () => {
      const db = `sqlite:${join(dir, 'shop.db')}`;
      await seed({ url: db, scale: 0.002, seed: 1, indexes: 'optimized', force: false });
      // the load generator on another CPU where there is one
      const client = availableParallelism() > 1 ? '1' : '0';
      const args = [
        'run',
        '--full',
        '--db',
        db,
        '--server-cpus',
        '0',
        '--client-cpus',
        client,
        '--workloads',
        'point-read',
        '--agents',
        '1',
        '--duration',
        '500ms',
        '--warmup',
        '200ms',
      ];
      const r = await runCli([...args, '--indexes', 'optimized', '--check-calls', '0', '--format', 'json'], {
        cwd: dir,
        timeoutMs: 120_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const file = resultFile.parse(JSON.parse(r.stdout));
      expect(file.config.cpus).toEqual({ server: '0', client });
      expect(file.steps.length).toBeGreaterThan(0);
      for (const step of file.steps) {
        expect(step.calls, step.workload).toBeGreaterThan(0);
        expect(step.server?.cpuPerCallUs, step.workload).toBeGreaterThan(0);
      }
      expect(r.stderr).toMatch(/point-read × 1: [\d,]+ calls\/s, server CPU [\d,]+ µs\/call/);
    },
    150_000,
  );

  it.skipIf(platform() !== 'linux')(
    'says what is missing: taskset, or a server the run starts',
    async () => {
      // no taskset on this PATH (node runs by its full path)
      const bare = await runCli(['run', '--server-cpus', '0'], {
        cwd: dir,
        timeoutMs: 30_000,
        env: { ...process.env, PATH: dir },
      });
      expect(bare.code).toBe(2);
      expect(bare.stderr).toMatch(/--server-cpus needs taskset \(util-linux/);
      const bad = await runCli(['run', '--client-cpus', 'one'], { cwd: dir, timeoutMs: 30_000 });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/a CPU list looks like 0, 0,2 or 0-3, not one/);
    },
    60_000,
  );

  it.skipIf(taskset !== undefined)(
    'refuses --server-cpus for a --target it did not start',
    async () => {
      const r = await runCli(['run', '--target', 'http://127.0.0.1:9/mcp', '--server-cpus', '0'], {
        cwd: dir,
        timeoutMs: 30_000,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/a --target server runs elsewhere/);
    },
    60_000,
  );
});
