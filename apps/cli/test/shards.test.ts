import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { seed } from '@mcp-db-bench/dataset';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-shards-'));
const db = `sqlite:${join(dir, 'bench.db')}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => seed({ url: db, scale: 0.002, seed: 1, indexes: 'optimized', force: false }), 60_000);

const run = (args: string[]): Promise<CliRun> => runCli(args, { cwd: dir, timeoutMs: 90_000 });
const read = (name: string): ResultFile => resultFile.parse(JSON.parse(readFileSync(join(dir, name), 'utf8')));

/**
 * One configuration: an open loop well below what this machine serves, so one process and four
 * make the same calls (rate × duration); in closed loop four CPU-bound processes on two shared
 * cores would not match one.
 */
const CONFIG = [
  '--db',
  db,
  '--workloads',
  'point-read',
  '--agents',
  '8',
  '--rate',
  '400',
  '--duration',
  '3s',
  '--warmup',
  '300ms',
  '--format',
  'json',
];

describe('run --shard and merge', () => {
  it('four shard processes make the calls one process makes, and merge refuses a shard of another run', async () => {
    const shards = [0, 1, 2, 3].map((i) =>
      run([...CONFIG, '--shard', `${i}/4`, '--barrier-file', join(dir, 'barrier'), '--out', `shard-${i}.json`]),
    );
    for (const [i, r] of (await Promise.all(shards)).entries()) expect(r.code, `shard ${i}: ${r.stderr}`).toBe(0);
    // the single process, then (so it never loads the single run) a shard of another run: other agents, another instant
    const single = await run([...CONFIG, '--indexes', 'optimized', '--out', 'single.json']);
    expect(single.code, single.stderr).toBe(0);
    const other = await run([
      ...CONFIG,
      '--agents',
      '4',
      '--shard',
      '1/4',
      '--start-at',
      new Date(Date.now() + 3000).toISOString(),
      '--out',
      'other.json',
    ]);
    expect(other.code, other.stderr).toBe(0);

    const merge = await run([
      'merge',
      'shard-0.json',
      'shard-1.json',
      'shard-2.json',
      'shard-3.json',
      '-o',
      'merged.json',
      '--format',
      'markdown',
    ]);
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout).toContain('### Latency and throughput');
    expect(merge.stdout).toMatch(/^4 shards merged · run \w+, begun at /m);
    const merged = read('merged.json');
    const one = read('single.json');
    const parts = [0, 1, 2, 3].map((i) => read(`shard-${i}.json`));

    // every shard ran 2 of the 8 agents and a quarter of the rate, and began its step when the others did
    for (const p of parts) expect(p.steps.map((s) => [s.agents, s.rate])).toEqual([[8, 100]]);
    const opened = parts.map((p) => p.steps[0]!.startedAt!);
    expect(Math.max(...opened) - Math.min(...opened)).toBeLessThan(1000);

    expect(merged.config.shard).toMatchObject({ count: 4, runId: parts[0]!.config.shard!.runId });
    expect(merged.shards!.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    const steps = (r: ResultFile) =>
      r.steps.map((s) => ({
        workload: s.workload,
        agents: s.agents,
        mode: s.mode,
        rate: s.rate,
        intervals: s.intervals.length,
      }));
    expect(steps(merged)).toEqual(steps(one));
    const [m, s] = [merged.steps[0]!, one.steps[0]!];
    // the schedules match exactly; only calls the machine could not keep up with (dropped) may differ
    expect(m.openLoop!.intended).toBe(s.openLoop!.intended);
    expect(Object.keys(m.operations)).toEqual(Object.keys(s.operations));
    for (const [op, stats] of Object.entries(s.operations)) {
      // a busy machine drops calls from either schedule: those may be missing, 2% more at most
      const dropped = m.openLoop!.dropped + s.openLoop!.dropped;
      expect(
        Math.abs(m.operations[op]!.count - stats.count),
        `${op}: ${m.operations[op]!.count} sharded, ${stats.count} in one process, ${dropped} dropped`,
      ).toBeLessThanOrEqual(dropped + 0.02 * stats.count);
    }
    expect(m.errors).toEqual({});
    expect(m.calls).toBe(parts.reduce((n, p) => n + p.steps[0]!.calls, 0));

    // a merged file is a result file like any other: the HTML report and compare read it
    const html = await run(['report', 'merged.json', '--format', 'html', '-o', 'merged.html']);
    expect(html.code, html.stderr).toBe(0);
    const compared = await run(['compare', 'merged.json', 'merged.json', '--format', 'json']);
    expect(compared.code, compared.stderr).toBe(0);
    const rows = JSON.parse(compared.stdout).rows as { workload: string; changes: { marked: boolean }[] }[];
    expect(rows.map((r) => [r.workload, r.changes.length, r.changes.some((c) => c.marked)])).toEqual([
      ['point-read', 3, false],
    ]);

    const rejected = await run([
      'merge',
      'shard-0.json',
      'shard-2.json',
      'shard-3.json',
      'other.json',
      '-o',
      'bad.json',
    ]);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(
      /other\.json \(shard 1 of run \w+\) is from another run than shard-0\.json \(shard 0 of run \w+\): configurations differ in agents/,
    );
    const missing = await run(['merge', 'shard-0.json', 'shard-1.json', 'shard-3.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('shard 2 missing');
  }, 120_000);

  it('refuses what shards cannot share, before starting anything', async () => {
    const usage = async (args: string[], message: string) => {
      const r = await run(['run', ...args]);
      expect(r.stderr).toContain(message);
      expect(r.code, r.stderr).toBe(2);
    };
    await usage(['--shard', '0/2', '--barrier-file', 'b'], '--shard needs --db, --target or --target-cmd');
    await usage(
      ['--db', db, '--shard', '4/4', '--barrier-file', 'b'],
      '--shard 4/4: I counts from 0, so with N = 4 it must be 0 to 3',
    );
    await usage(['--shard', '1-4'], '--shard must be I/N');
    await usage(['--db', db, '--shard', '0/2'], '--shard needs --start-at TIME or --barrier-file PATH');
    await usage(['--db', db, '--shard', '0/2', '--start-at', '2020-01-01T00:00:00Z'], 's in the past');
    await usage(
      ['--db', db, '--shard', '0/2', '--start-at', '2099-01-01T00:00:00'],
      '--start-at must be an ISO time with a zone',
    );
    await usage(['--start-at', new Date(Date.now() + 60_000).toISOString()], '--start-at needs --shard I/N');
    await usage(
      ['--db', db, '--shard', '0/2', '--barrier-file', 'b', '--indexes', 'baseline'],
      '--indexes cannot be used with --shard',
    );
    await usage(
      ['--db', db, '--shard', '0/2', '--barrier-file', 'b', '--workloads', 'transfer'],
      '--shard cannot run write workloads (transfer)',
    );
    // a shard never seeds: a database without the dataset fails before anything starts
    const unseeded = await run([
      'run',
      '--db',
      `sqlite:${join(dir, 'none.db')}`,
      '--shard',
      '0/2',
      '--barrier-file',
      join(dir, 'b'),
      '--workloads',
      'point-read',
    ]);
    expect(unseeded.code).toBe(1);
    expect(unseeded.stderr).toContain('shards never seed: seed it once with mcp-db-bench seed');
  });
});
