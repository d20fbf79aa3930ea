import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import type { RunEvent, StepKey } from '@mcp-db-bench/loadgen';
import { formatStages, MAX_STAGE_ROWS, stageSections } from '@mcp-db-bench/report';
import { InvalidArgumentError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStages } from '../src/parse/stages.js';
import { liveStepLine, progress } from '../src/render/progress.js';
import { type CliRun, runCli } from './support/cli.js';

/**
 * Load stages end to end: the grammar, the live progress line, and staged runs of the built CLI
 * against our server on SQLite (a few seconds each), soak included as their preset.
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-stages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCli(args, { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, timeoutMs: 60_000 });
}

describe('the stage grammar', () => {
  it('reads DURATION:TARGET pairs, k6-style, and writes them back', () => {
    const stages = parseStages('5s:1, 2s:16,500ms:16,1m:0');
    expect(stages).toEqual([
      { durationMs: 5000, target: 1 },
      { durationMs: 2000, target: 16 },
      { durationMs: 500, target: 16 },
      { durationMs: 60_000, target: 0 },
    ]);
    expect(formatStages(stages)).toBe('5s:1,2s:16,500ms:16,1m:0');
    expect(parseStages('0s:50,10m:50')).toEqual([
      { durationMs: 0, target: 50 },
      { durationMs: 600_000, target: 50 },
    ]);
  });

  it.each([
    ['5x:1', '"5x:1": duration must be like 5s, 2m or 500ms'],
    ['5s:1,2s', '"2s": a stage is DURATION:TARGET, e.g. 30s:10'],
    ['5s:1:2', '"5s:1:2": a stage is DURATION:TARGET, e.g. 30s:10'],
    ['5s:1.5', '"5s:1.5": target must be a whole number from 0 to 10000'],
    ['90m:4', '"90m:4": a stage lasts at most 1 hour'],
    ['0s:5', 'the stages need some time: every duration is 0'],
    ['5s:0,1s:0', 'the stages never rise above 0'],
  ])('%s: %s', (value, message) => {
    expect(() => parseStages(value)).toThrow(new InvalidArgumentError(message));
  });
});

describe('the live progress line', () => {
  const step: StepKey = { target: 'sqlite', indexes: 'optimized', workload: 'point-read', agents: 16, iteration: 1 };

  it('says where the step is, its calls per second so far, errors, and the agents or rate now', () => {
    expect(liveStepLine(step, { slice: 0, atMs: 0, calls: 0, errors: 0 }, { slices: 1, durationMs: 14_000 })).toBe(
      'sqlite (optimized) point-read × 16: 0 s / 14 s, starting, 0 errors',
    );
    expect(
      liveStepLine(
        step,
        { slice: 0, atMs: 4000, calls: 10_000, errors: 1, agents: 9 },
        { slices: 1, durationMs: 14_000 },
      ),
    ).toBe('sqlite (optimized) point-read × 16: 4 s / 14 s, 2,500 calls/s, 1 error, 9 agents now');
    expect(liveStepLine(step, { slice: 0, atMs: 1000, calls: 10, errors: 0, agents: 1 })).toBe(
      'sqlite (optimized) point-read × 16: 1 s, 10 calls/s, 0 errors, 1 agent now',
    );
    expect(
      liveStepLine(step, { slice: 1, atMs: 2000, calls: 300, errors: 2, rate: 150.4 }, { slices: 3, durationMs: 2000 }),
    ).toBe('sqlite (optimized) point-read × 16 (turn 2/3): 2 s / 2 s, 150 calls/s, 2 errors, 150 calls/s intended now');
  });

  it('moves on a terminal; elsewhere only the step ends are written, with no carriage returns', () => {
    const events: RunEvent[] = [
      { type: 'step-start', step, slice: 0, slices: 1, durationMs: 2000 },
      { type: 'interval', step, slice: 0, atMs: 0, calls: 0, errors: 0, agents: 1 },
      { type: 'interval', step, slice: 0, atMs: 1000, calls: 900, errors: 0, agents: 4 },
    ];
    const shown = (tty: boolean) => {
      let text = '';
      const show = progress((t) => {
        text += t;
      }, tty);
      for (const e of events) show(e);
      return text;
    };
    expect(shown(true)).toContain(
      '\r\x1b[Ksqlite (optimized) point-read × 16: 1 s / 2 s, 900 calls/s, 0 errors, 4 agents now …',
    );
    expect(shown(false)).toBe('');
  });

  it('never wraps on a terminal: cut to its columns, so redrawing it leaves no row behind', () => {
    const lines: string[] = [];
    const show = progress(
      (t) => lines.push(t),
      true,
      () => 50,
    );
    show({ type: 'step-start', step, slice: 0, slices: 1, durationMs: 2000 });
    show({ type: 'interval', step, slice: 0, atMs: 1000, calls: 900, errors: 0 });
    expect(lines.at(-1)).toBe('\r\x1b[Ksqlite (optimized) point-read × 16: 1 s / 2 s, 9…');
    for (const line of lines) expect(line.replace('\r\x1b[K', '').length).toBeLessThan(50);
  });
});

describe('staged runs of the CLI (SQLite)', () => {
  const seeded = ['--scale', '0.002', '--indexes', 'optimized', '--workloads', 'point-read'];

  it('--stages ramps the agents up and down: every second says how many were active and what they did', async () => {
    const out = join(dir, 'spike.json');
    const r = await run(['run', '--stages', '1s:1,1s:4,1s:4,1s:1', ...seeded, '--format', 'json', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    // stdout is the result file alone; progress went to stderr, as plain lines (not a terminal)
    const result = resultFile.parse(JSON.parse(r.stdout));
    expect(r.stderr).not.toContain('\r');
    expect(result.config.stages).toEqual({ kind: 'agents', stages: parseStages('1s:1,1s:4,1s:4,1s:1') });
    expect(result.config.agents).toEqual([4]);
    expect(result.config.durationMs).toBe(4000);
    expect(result.steps).toHaveLength(1);
    const [step] = result.steps;
    expect(step!.agents).toBe(4);
    expect(step!.mode).toBe('closed');
    expect(step!.errors).toEqual({});
    // 0→1 over the first second (agent 1 from 0.5 s), 1→4 over the next (2.5 on average), hold 4, 4→1
    expect(step!.intervals.map((i) => i.agents)).toEqual([0.5, 2.5, 4, 2.5]);
    for (const i of step!.intervals) expect(i.calls, `second ${i.atMs / 1000}`).toBeGreaterThan(0);

    const md = await run(['report', out, '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('agent stages 1s:1,1s:4,1s:4,1s:1');
    expect(md.stdout).toContain(
      '### sqlite 2025 session (optimized) point-read through agent stages 1s:1,1s:4,1s:4,1s:1',
    );
    expect(md.stdout).toMatch(
      /\| at \| agents \| calls\/s \| p50 ms \| p99 ms \| errors \|\n.*\n\| 0 s \| 0\.5 \| [\d,]+ \| [\d.]+ \| [\d.]+ \| 0 \|\n\| 1 s \| 2\.5 \|.*\n\| 2 s \| 4 \|.*\n\| 3 s \| 2\.5 \|/,
    );
  }, 60_000);

  it('a long staged step groups its seconds: the report keeps to 30 rows', () => {
    // the spike's result, its 4 seconds repeated 20 times: 80 s
    const result = resultFile.parse(JSON.parse(readFileSync(join(dir, 'spike.json'), 'utf8')));
    const step = result.steps[0]!;
    const intervals = Array.from({ length: 80 }, (_, i) => ({ ...step.intervals[i % 4]!, atMs: i * 1000 }));
    const [section] = stageSections({ ...result, steps: [{ ...step, intervals, durationMs: 80_000 }] });
    expect(section!.rows).toHaveLength(Math.ceil(80 / 3));
    expect(section!.rows.length).toBeLessThanOrEqual(MAX_STAGE_ROWS);
    const [first] = section!.rows;
    expect(first!.slice(0, 3)).toEqual([
      '0–3 s',
      '2.3',
      Math.round((step.intervals[0]!.calls + step.intervals[1]!.calls + step.intervals[2]!.calls) / 3).toLocaleString(
        'en-US',
      ),
    ]);
    // the last group is two seconds: its rate is over those two
    expect(section!.rows.at(-1)!.slice(0, 2)).toEqual(['78–80 s', '3.3']);
  });

  it('--rate-stages ramps an open loop: each second records the calls intended and served', async () => {
    const r = await run(['run', '--rate-stages', '1s:40,1s:40', '--agents', '2', ...seeded, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(r.stdout));
    expect(result.config.stages?.kind).toBe('rate');
    const [step] = result.steps;
    expect(step!.mode).toBe('open');
    expect(step!.agents).toBe(2);
    expect(step!.rate).toBe(40);
    expect(step!.intervals.map((i) => i.rate)).toEqual([20, 40]);
    expect(step!.openLoop?.intended).toBe(60);
    expect(step!.calls + (step!.openLoop?.dropped ?? 0)).toBe(60);
    expect(step!.errors).toEqual({});
  }, 60_000);

  it('refuses what the stages decide themselves (exit 2, before anything starts)', async () => {
    const r = await run(['run', '--stages', '5s:4', '--agents', '2', '--duration', '1s']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      'mcp-db-bench: --stages cannot be used with --agents or --duration: the stages set the agents and the time',
    );
    const bad = await run(['run', '--stages', '5x:1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      'mcp-db-bench: --stages: "5x:1": duration must be like 5s, 2m or 500ms; see mcp-db-bench run --help',
    );
  });

  it('soak is their preset: it holds the agents (0s:N,DURATION:N) and samples the server memory on the seconds', async () => {
    const args = [
      'soak',
      '--agents',
      '2',
      '--duration',
      '2s',
      '--warmup',
      '500ms',
      '--every',
      '1s',
      '--workloads',
      'point-read',
      '--scale',
      '0.002',
      '--workers',
      '1',
    ];
    // its server slowed on purpose (1 ms a call, the test-only delay it inherits): the file says so
    const r = await run([...args, '--format', 'json'], { MCP_DB_BENCH_TEST_DELAY_MS: '1' });
    expect(r.code, r.stderr).toBe(0);
    // the contract's result file, as run writes it, with the memory samples beside the step
    const soak = resultFile.parse(JSON.parse(r.stdout));
    expect(soak.warnings).toContain(
      'every tool call was delayed 1 ms on purpose (MCP_DB_BENCH_TEST_DELAY_MS): a test run, not a measurement',
    );
    expect(soak.config.stages).toEqual({
      kind: 'agents',
      stages: [
        { durationMs: 0, target: 2 },
        { durationMs: 2000, target: 2 },
      ],
    });
    const [step] = soak.steps;
    expect(soak.steps).toHaveLength(1);
    expect(step!.errors).toEqual({});
    expect(step!.calls).toBeGreaterThan(0);
    expect(step!.durationMs).toBe(2000);
    expect(step!.intervals.map((i) => i.agents)).toEqual([2, 2]);
    for (const i of step!.intervals) expect(i.calls).toBeGreaterThan(0);
    const [memory] = soak.memory!;
    expect(memory!.target).toBe(step!.target);
    expect(memory!.samples.map((s) => s.atMs)).toEqual([0, 1000, 2000]);
    for (const s of memory!.samples) expect(s.rss).toBeGreaterThan(1024 * 1024);
    expect(r.stderr).not.toContain('\r');
  }, 60_000);
});
