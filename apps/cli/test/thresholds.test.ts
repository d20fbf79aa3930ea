import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkThresholds, junitXml, parseThreshold, ThresholdSyntaxError } from '@mcp-db-bench/report';
import { result, stats, step } from '@mcp-db-bench/report/testing';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const WORKLOADS = ['point-read', 'filtered', 'write'];
const parse = (text: string) => parseThreshold(text, WORKLOADS);

/** 1,000 calls: 990 at 1 ms and 10 at 20 ms; so p99 is 1 ms and p99.9 20 ms. */
const latencies = [...Array(990).fill(1000), ...Array(10).fill(20_000)];
const run = () =>
  result([
    step({ workload: 'point-read', agents: 1, calls: 1000, all: stats(latencies), errors: { http_503: 10 } }),
    step({ workload: 'point-read', agents: 10, calls: 4000, durationMs: 2000 }),
    step({ workload: 'filtered', agents: 1, calls: 500 }),
  ]);

describe('parseThreshold', () => {
  it('reads scope, metric, operator, value and unit', () => {
    expect(parse('point-read@10:p99<5ms')).toMatchObject({
      workload: 'point-read',
      agents: 10,
      metric: 'p99',
      op: '<',
      limit: 5000,
    });
    expect(parse('p99.9 <= 1s')).toMatchObject({ workload: undefined, metric: 'p99.9', op: '<=', limit: 1_000_000 });
    expect(parse('filtered:p50<800us')).toMatchObject({ metric: 'p50', limit: 800 });
    expect(parse('max<20')).toMatchObject({ metric: 'max', limit: 20_000 });
    expect(parse('errors<0.1%')).toMatchObject({ metric: 'errors', limit: 0.001 });
    expect(parse('calls/s>=1000')).toMatchObject({ metric: 'calls/s', op: '>=', limit: 1000 });
  });

  it.each([
    ['p99 < five', /expected \[WORKLOAD\[@AGENTS\]:\]METRIC OP VALUE/],
    ['p42<5ms', /METRIC: p50, p90/],
    ['point-reed:p99<5ms', /no workload named point-reed \(workloads: point-read, filtered, write\)/],
    ['errors<0.1', /errors takes a percentage/],
    ['calls/s>1000ms', /calls\/s takes a number of calls per second/],
    ['p99<5%', /p99 takes a time/],
  ])('refuses %s, naming the mistake', (text, message) => {
    expect(() => parse(text)).toThrow(ThresholdSyntaxError);
    expect(() => parse(text)).toThrow(message);
  });
});

describe('checkThresholds', () => {
  it('judges every step a threshold names, from the merged histogram', () => {
    const verdicts = checkThresholds(run(), [parse('point-read:p99<=1ms'), parse('point-read@1:p99.9<5ms')]);
    expect(verdicts.map((v) => [v.step?.agents, v.ok])).toEqual([
      [1, true],
      [10, true],
      [1, false],
    ]);
    expect(verdicts[2]!.line).toBe(
      'FAIL point-read@1:p99.9<5ms: sqlite (optimized indexes) point-read at 1 agent: 20 ms (limit < 5 ms)',
    );
  });

  it('takes errors as the share of calls that failed, and calls/s as goodput', () => {
    const [errors] = checkThresholds(run(), [parse('point-read@1:errors<1%')]);
    expect(errors!.actual).toBeCloseTo(10 / 1010);
    expect(errors!.ok).toBe(true);
    const [slow] = checkThresholds(run(), [parse('point-read@10:calls/s>2000')]);
    expect(slow).toMatchObject({ ok: false, actual: 2000 });
    expect(checkThresholds(run(), [parse('point-read@10:calls/s>=2000')])[0]!.ok).toBe(true);
  });

  it('fails a threshold that names no step, so a gate never passes on nothing', () => {
    const [verdict] = checkThresholds(run(), [parse('write:errors<1%')]);
    expect(verdict!.ok).toBe(false);
    expect(verdict!.step).toBeUndefined();
    expect(verdict!.line).toBe(
      'FAIL write:errors<1%: matched no step of this run (steps: point-read@1, point-read@10, filtered@1)',
    );
  });
});

describe('junitXml', () => {
  const xml = () =>
    junitXml(
      run(),
      checkThresholds(run(), [parse('p99<5ms'), parse('point-read@1:p99.9<5ms'), parse('write:errors<1%')]),
    );

  it('writes a suite of thresholds and a suite of steps, failures counted', () => {
    const text = xml();
    expect(text).toMatch(/<testsuite name="mcp-db-bench thresholds" tests="5" failures="2" errors="0"/);
    expect(text).toMatch(/<testsuite name="mcp-db-bench steps" tests="3" failures="0" errors="0" time="4.000"/);
    expect(text).toContain(
      '<testcase name="point-read@1:p99.9&lt;5ms point-read @1 on sqlite (optimized)" classname="mcp-db-bench.thresholds"',
    );
    expect(text).toContain(
      '<failure message="FAIL point-read@1:p99.9&lt;5ms: sqlite (optimized indexes) point-read at 1 agent: 20 ms (limit &lt; 5 ms)"/>',
    );
  });

  it('marks a write step whose read-back went wrong as failed', () => {
    const verification = {
      marker: 'm',
      ok: false,
      acknowledged: { insert: 1, update: 0, delete: 0, transfer: 0 },
      failed: {},
      unknown: 0,
      rowsRead: 0,
      lost: 1,
      phantom: 0,
      wrongValues: 0,
      payments: { expected: 0, found: 0 },
      accounts: { checked: 0, mismatched: 0 },
      money: { before: '0', after: '0' },
      problems: ['insert of row 7 acknowledged but missing'],
    };
    const text = junitXml(result([step({ workload: 'write', agents: 1, calls: 1, verification })]), []);
    expect(text).toMatch(/<testsuite name="mcp-db-bench steps" tests="1" failures="1"/);
    expect(text).toContain('write verification failed: insert of row 7 acknowledged but missing');
  });

  it('is well-formed XML that a parser reads back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-junit-'));
    try {
      const file = join(dir, 'junit.xml');
      writeFileSync(file, xml());
      // Python's own XML parser: an independent reader, present wherever the Python tests run.
      const python = `import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(len(r.findall('.//testcase')), len(r.findall('.//failure')))`;
      expect(execFileSync('python3', ['-c', python, file], { encoding: 'utf8' }).trim()).toBe('8 2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('run --threshold and --junit', () => {
  it('judges a real run, says which threshold failed, exits 1 and writes JUnit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-gates-'));
    try {
      const junit = join(dir, 'junit.xml');
      const args = [
        'run',
        '--scale',
        '0.002',
        '--workloads',
        'point-read',
        '--agents',
        '1',
        '--duration',
        '1s',
        '--warmup',
        '200ms',
      ];
      const r = await runCli(
        [
          ...args,
          '--indexes',
          'optimized',
          '--threshold',
          'point-read:calls/s>1',
          '--threshold',
          'point-read:p99<1us',
          '--junit',
          junit,
        ],
        {
          timeoutMs: 120_000,
        },
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /^ok {3}point-read:calls\/s>1: .* point-read at 1 agent: [\d,]+ calls\/s \(limit > 1 calls\/s\)$/m,
      );
      expect(r.stderr).toMatch(/^FAIL point-read:p99<1us: .* point-read at 1 agent: [\d.]+ ms \(limit < 0\.001 ms\)$/m);
      expect(readFileSync(junit, 'utf8')).toMatch(/<testsuite name="mcp-db-bench thresholds" tests="2" failures="1"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it('refuses, before any work, a threshold it cannot read and an output in a missing directory', async () => {
    const bad = await runCli(['run', '--threshold', 'point-read:p99<5%'], { timeoutMs: 30_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--threshold: p99 takes a time/);
    for (const flag of ['--out', '--html', '--junit']) {
      const missing = await runCli(['run', flag, join('no-such-dir', 'x')], { timeoutMs: 30_000 });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(new RegExp(`${flag} no-such-dir/x: there is no directory`));
      expect(existsSync('no-such-dir')).toBe(false);
    }
  });
});
