import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../../../packages/server/test/support/databases.js';
import { type CliRun, runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<CliRun> {
  return runCli(args, { cwd: dir, timeoutMs: 240_000 });
}

describe('mcp-db-bench run', () => {
  const out = join(dir, 'result.json');
  const workloads = ['session-init', 'point-read', 'filtered', 'analytical', 'mixed', 'echo'];

  it('runs every workload at two concurrency levels in two index rounds and writes a valid result file', async () => {
    const r = await run(['run', '--scale', '0.002', '--agents', '1,2', '--duration', '300ms', '--warmup', '100ms', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.config.targets.map((t) => t.engine)).toEqual(['sqlite']);
    // the default measures what hosts speak: the 2025 era on a session
    expect(result.config.targets.map((t) => t.label)).toEqual(['sqlite 2025 session']);
    expect(result.config.protocol).toBe('legacy');
    // database workloads run once per index profile, echo once, and the bare node:http floor once
    expect(result.steps).toHaveLength((workloads.length - 1) * 2 * 2 + 2 + 2);
    for (const step of result.steps) {
      expect(step.calls, `${step.workload} × ${step.agents}`).toBeGreaterThan(0);
      expect(step.errors, `${step.workload} × ${step.agents}`).toEqual({});
    }
    expect(new Set(result.steps.map((s) => s.workload))).toEqual(new Set([...workloads, 'http-echo']));
    expect(result.sessionInit.map((s) => s.indexes)).toEqual(['baseline', 'optimized']);
    expect(result.decomposition.map((d) => d.operation)).toEqual(['get orders by id', 'query order_items by order_id']);
    for (const section of ['Session init', 'Latency and throughput', 'Concurrency scaling', 'Index speed-up', 'Where the time goes', 'Load generator check']) {
      expect(r.stdout).toContain(section);
    }
  });

  it('renders the saved result as Markdown and JSON without re-running', async () => {
    const md = await run(['report', out, '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/### Latency and throughput/);
    expect(md.stdout).toMatch(/\| sqlite 2025 session \(optimized\) \| point-read \| 2 \|/);
    const json = await run(['report', out, '--format', 'json']);
    expect(resultFile.safeParse(JSON.parse(json.stdout)).success).toBe(true);
  });

  it.skipIf(!process.env.PG_URL || !process.env.MYSQL_URL)('compares SQLite, PostgreSQL and MariaDB side by side in one run', async () => {
    const pg = await freshDatabase({ engine: 'postgres', baseUrl: process.env.PG_URL! }, 'bench_run');
    const maria = await freshDatabase({ engine: 'mariadb', baseUrl: process.env.MYSQL_URL! }, 'bench_run');
    const file = join(dir, 'compare.json');
    const r = await run(['run', '--db', `sqlite:${join(dir, 'compare.db')}`, '--db', pg, '--db', maria, '--scale', '0.002', '--agents', '1,2',
      '--workloads', 'point-read,filtered', '--indexes', 'optimized', '--duration', '300ms', '--warmup', '100ms', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(result.config.targets.map((t) => t.label)).toEqual(['sqlite 2025 session', 'postgres 2025 session', 'mysql 2025 session']);
    for (const step of result.steps) expect(step.errors, `${step.target} ${step.workload}`).toEqual({});
    expect(r.stdout).toMatch(/Engines compared \(optimized indexes\)/);
    expect(r.stdout).toMatch(/│\s+point-read │\s+2(?: │\s+[\d,.]+ \/s, p50 [\d.]+){3} │/);
  });

  it('measures both protocol eras side by side, the host era first, each row naming its era', async () => {
    const file = join(dir, 'eras.json');
    const r = await run(['run', '--db', `sqlite:${join(dir, 'eras.db')}`, '--scale', '0.002', '--agents', '1', '--protocol', 'legacy,modern',
      '--workloads', 'session-init,point-read', '--indexes', 'optimized', '--duration', '300ms', '--warmup', '100ms', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(result.config.targets.map((t) => t.label)).toEqual(['sqlite 2025 session', 'sqlite 2026']);
    expect(result.sessionInit.map((s) => s.target)).toEqual(['sqlite 2025 session', 'sqlite 2026']);
    const steps = result.steps.filter((s) => s.workload === 'point-read');
    expect(steps.map((s) => s.target)).toEqual(['sqlite 2025 session', 'sqlite 2026']);
    for (const step of steps) expect(step.errors).toEqual({});
    expect(r.stdout).toMatch(/sqlite 2025 session \(optimized\)/);
    expect(r.stdout).toMatch(/sqlite 2026 \(optimized\)/);
  });

  it('refuses a file that is not a result file', async () => {
    const r = await run(['report', join(dir, 'result.json.missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`mcp-db-bench: cannot read the result file ${join(dir, 'result.json.missing')}: no such file\n`);
  });
});
