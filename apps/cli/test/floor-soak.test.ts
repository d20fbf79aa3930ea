import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './support/cli.js';

/**
 * floor and soak write the contract's result file, and report, compare and the HTML report read
 * it: one small floor and one small soak on a temporary SQLite database (about 20 s together).
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-floor-soak-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<CliRun> {
  return runCli(args, { cwd: dir, env: { PATH: process.env.PATH ?? '' }, timeoutMs: 90_000 });
}

const floorFile = join(dir, 'floor.json');
const soakFile = join(dir, 'soak.json');
let floor: CliRun;
let soak: CliRun;

beforeAll(async () => {
  const small = ['--duration', '300ms', '--warmup', '100ms', '--scale', '0.001', '--workers', '1'];
  floor = await run([
    'floor',
    ...small,
    '--agents',
    '1',
    '--iterations',
    '1',
    '--slices',
    '1',
    '--protocol',
    'modern',
    '--out',
    floorFile,
  ]);
  soak = await run([
    'soak',
    ...small,
    '--agents',
    '2',
    '--every',
    '1s',
    '--workloads',
    'point-read',
    '--out',
    soakFile,
  ]);
}, 180_000);

describe('floor and soak result files', () => {
  it('floor writes a result file with each step beside its floor, and prints the floor tables', () => {
    expect(floor.code, floor.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(floorFile, 'utf8')));
    expect(result.config.targets.map((t) => t.label)).toEqual(['bare node:http before sqlite 2026', 'sqlite 2026']);
    expect(result.config.slices).toBe(1);
    expect(result.config.workers).toBe(1);
    expect(result.config.command).toMatch(/^mcp-db-bench floor --duration 300ms /);
    expect(result.steps.map((s) => `${s.target} ${s.workload}`)).toEqual([
      'bare node:http before sqlite 2026 point-read',
      'sqlite 2026 point-read',
      'bare node:http before sqlite 2026 filtered',
      'sqlite 2026 filtered',
    ]);
    for (const step of result.steps) {
      expect(step.calls, step.target).toBeGreaterThan(0);
      // each side's own server process, read from /proc around the window: an echo costs CPU too
      expect(step.server?.cpuPerCallUs, step.target).toBeGreaterThan(0);
    }
    expect(floor.stdout).toContain('Our server against the bare node:http echo floor, same run');
    expect(floor.stdout).toMatch(/│ sqlite 2026\s+│\s+point-read │\s+1 │/);
  });

  it('soak writes a result file with the memory it sampled', () => {
    expect(soak.code, soak.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(soakFile, 'utf8')));
    expect(result.steps.map((s) => s.target)).toEqual(['sqlite 2026']);
    expect(result.memory?.map((m) => m.target)).toEqual(['sqlite 2026']);
    expect(result.memory![0]!.samples.length).toBeGreaterThan(0);
    expect(soak.stdout).toContain('Server memory under 2 agents (point-read, modern protocol), 1 worker process(es)');
  });

  it('report renders both, with their own tables', async () => {
    const r = await run(['report', floorFile, soakFile, '--format', 'markdown']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('## floor');
    expect(r.stdout).toContain('### Our server against the bare node:http echo floor, same run');
    expect(r.stdout).toMatch(/\| client CPU µs\/call \(ours \/ floor\) \| server CPU µs\/call \(ours \/ floor\) \|/);
    expect(r.stdout).toMatch(/\| sqlite 2026 \| point-read \|.* \| \d[\d,]* \/ \d[\d,]* \| \d[\d,]* \/ \d[\d,]* \|/);
    expect(r.stdout).toContain('## soak');
    expect(r.stdout).toContain('### Server memory under 2 agents');
    expect(r.stdout).toContain('### Latency and throughput');
  });

  it('compare matches their steps', async () => {
    const rows = async (file: string) => {
      const r = await run(['compare', file, file, '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout).rows as { target: string; workload: string }[]).map(
        (row) => `${row.target} ${row.workload}`,
      );
    };
    expect(await rows(floorFile)).toEqual([
      'bare node:http before sqlite 2026 point-read',
      'sqlite 2026 (optimized) point-read',
      'bare node:http before sqlite 2026 filtered',
      'sqlite 2026 (optimized) filtered',
    ]);
    expect(await rows(soakFile)).toEqual(['sqlite 2026 point-read']);
  });

  it('the HTML report opens them', async () => {
    const r = await run(['report', floorFile, soakFile, '--format', 'html']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>/i);
    expect(r.stdout).toContain('sqlite 2026');
  });
});
