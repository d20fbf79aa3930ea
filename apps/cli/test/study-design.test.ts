import { comparisonPairs, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { comparisons } from '@mcp-db-bench/report';
import { result, stats, step } from '@mcp-db-bench/report/testing';
import { describe, expect, it } from 'vitest';
import { otherData, STUDY, type StudySettings, sizedBy } from '../src/benchmark/study.js';
import { estimateText, guessedOverheads, learnedOverheads, segmentEstimate } from '../src/benchmark/study-estimate.js';
import { extendResult, sequential, settlement, settlementText } from '../src/benchmark/study-settle.js';
import { callTimesOf, fallbackCalls, sizingArgs, stepDurations } from '../src/benchmark/study-sizing.js';

const settings: StudySettings = {
  dbs: ['sqlite:a.db', 'postgres://u:p@127.0.0.1/b'],
  peers: [],
  scale: 1,
  seed: 42,
  out: 'out',
  durationMs: 2000,
  warmupMs: 500,
  iterations: 5,
};
const segment = (name: string) => STUDY.segments.find((s) => s.name === name)!;

describe('steps sized to the work', () => {
  it("takes an earlier study's sizing only where it measured the same data", () => {
    const base = result([]).config;
    const config = {
      ...base,
      scale: 1,
      seed: 42,
      targets: settings.dbs.map((url, i) => ({ label: `db${i}`, engine: 'sqlite', url: redactUrl(url) })),
    };
    expect(otherData(config, settings)).toEqual([]);
    expect(otherData({ ...config, scale: 0.1, seed: 7 }, settings)).toEqual(['scale 0.1', 'seed 7']);
    expect(otherData(config, { ...settings, dbs: settings.dbs.slice(0, 1) })).toEqual([
      `databases sqlite:a.db, ${redactUrl(settings.dbs[1]!)}`,
    ]);
    expect(otherData(config, { ...settings, peers: ['dbhub'] })).toEqual(['peers none']);
  });

  it('gives calls of seconds steps that hold 20 of them and drain within half a step, up to the cap', () => {
    // 0.5 s on average, 3 s the longest: at 10 agents on 2 cores the calls in flight at a step's
    // end drain in (3 + 9 × 1.75) / 2 = 9.375 s, at 50 in (3 + 49 × 1.75) / 2 = 44.375 s
    const calls = { meanMs: 500, longestMs: 3000 };
    expect(stepDurations(calls, [1, 10, 50], { cpus: 2, baseMs: 2000 })).toEqual({
      1: 10_000, // 20 calls at the mean, so a step of more long calls than average still makes 10
      10: 18_800,
      50: 88_800,
    });
    // calls of 4 s to 8 s: 50 agents would want 302 s; capped, their ratios will say they overran
    expect(stepDurations({ meanMs: 4000, longestMs: 8000 }, [50], { cpus: 2, baseMs: 2000 })).toEqual({
      50: STUDY.maxStepMs,
    });
    // calls of milliseconds keep the design's steps, however short
    const quick = { meanMs: 5, longestMs: 10 };
    expect(stepDurations(quick, [1, 10, 50], { cpus: 2, baseMs: 2000 })).toEqual({ 1: 2000, 10: 2000, 50: 2000 });
    // ... unless 50 agents' calls in flight (188.75 ms to drain) would outlast half of them
    expect(stepDurations(quick, [1, 50], { cpus: 2, baseMs: 200 })).toEqual({ 1: 200, 50: 400 });
  });

  it("sizes session start by the slowest server's: Faucet's 0.2 s discovery on MariaDB", () => {
    // 5 sessions a second at 1 agent was half a rate's minimum in 1 s steps; at 50 agents none
    // ended in one. At 10 agents the 10 in flight drain in (300 + 9 × 245) / 2 = 1,252.5 ms
    const faucet = { meanMs: 190, longestMs: 300 };
    expect(stepDurations(faucet, [1, 10, 50], { cpus: 2, baseMs: 1000 })).toEqual({ 1: 3800, 10: 2600, 50: 12_400 });
    // ours alone (2 ms, 10 at the longest) keeps the design's steps
    const ours = fallbackCalls(sizedBy(segment('session-init'))!, 0.1);
    expect(ours).toEqual({ meanMs: 2, longestMs: 10 });
    expect(stepDurations(ours, [1, 10, 50], { cpus: 2, baseMs: 1000 })).toEqual({ 1: 1000, 10: 1000, 50: 1000 });
    // whole-table groupings grow with the data: untimed, scale 1's calls scaled
    expect(fallbackCalls(sizedBy(segment('analytical-table'))!, 0.1)).toEqual({ meanMs: 60, longestMs: 300 });
    expect(sizedBy(segment('point-read'))).toBeUndefined();
  });

  it('times the calls alone on both index sets before the sized segment', () => {
    const args = sizingArgs(segment('analytical-table'), settings, 'out/analytical-table.sizing.json');
    const flag = (name: string) => args[args.indexOf(name) + 1];
    expect([flag('--workloads'), flag('--agents'), flag('--indexes'), flag('--iterations')]).toEqual([
      'analytical-table',
      '1',
      'baseline,optimized',
      '2',
    ]);
    expect([flag('--duration'), flag('--check-calls'), flag('--out')]).toEqual([
      '4000ms',
      '0',
      'out/analytical-table.sizing.json',
    ]);
  });
});

describe('calls timed alone', () => {
  const config = { ...result([]).config, warmupMs: 1 };
  const quick = (target: string, iteration: number, extra: Partial<StepResult>) =>
    step({ workload: 'analytical-table', agents: 1, calls: 0, durationMs: 1000, target, iteration, ...extra });

  it('reads the mean of the calls measured and the longest, counting how long one ran past its step', () => {
    const file = result(
      [
        // PostgreSQL: calls of 2 and 3 ms filled the steps
        step({ workload: 'analytical-table', agents: 1, calls: 40, target: 'pg', all: stats(Array(40).fill(3000)) }),
        step({
          workload: 'analytical-table',
          agents: 1,
          calls: 60,
          target: 'pg',
          iteration: 2,
          all: stats(Array(60).fill(2000)),
        }),
        // SQLite: one call begun in the warm-up ran 3,899 ms past the step, then two of 1 ms and one
        // still running 4,899 ms past the next step: the longest of them all
        quick('sqlite', 1, { overrun: { calls: 1, lastEndedAfterMs: 3899 } }),
        quick('sqlite', 2, { calls: 2, all: stats([1000, 1000]), overrun: { calls: 1, lastEndedAfterMs: 4899 } }),
      ],
      { config },
    );
    const times = callTimesOf(file)!;
    expect(times.meanMs).toBeCloseTo(2.4, 1); // PostgreSQL's (120 + 120) / 100: SQLite's 1 ms is less
    expect(times.longestMs).toBeCloseTo(4899, 0);
    expect(callTimesOf(result([quick('sqlite', 1, {})], { config }))).toBeUndefined();
  });

  it("takes each workload's calls apart: a server's thousands of handshakes do not hide its session starts", () => {
    const at = (workload: string, calls: number, us: number, iteration = 1) =>
      step({ workload, agents: 1, calls, target: 'faucet mariadb', iteration, all: stats(Array(calls).fill(us)) });
    const file = result(
      [
        at('handshake', 4000, 900),
        at('session-init', 5, 190_000),
        at('session-init', 5, 210_000, 2),
        // ours: sessions of 2 ms
        step({ workload: 'session-init', agents: 1, calls: 500, target: 'mariadb', all: stats(Array(500).fill(2000)) }),
      ],
      { config },
    );
    const times = callTimesOf(file)!;
    expect(times.meanMs).toBeCloseTo(200, 0); // Faucet's sessions; with its handshakes the mean would be 1.4 ms
    expect(times.longestMs).toBeCloseTo(210, 0);
  });

  it('takes a database that finished no call in its steps at its longest', () => {
    const file = result([quick('sqlite', 1, { overrun: { calls: 1, lastEndedAfterMs: 700 } })], { config });
    expect(callTimesOf(file)).toEqual({ meanMs: 700, longestMs: 700 });
  });
});

describe("the study's time", () => {
  it('counts steps, the calls that run past them, and re-indexing', () => {
    const overheads = { startMs: 10_000, reindexMs: 30_000 };
    const plain = segmentEstimate(segment('point-read'), settings, { overheads, cpus: 2 });
    // 2 databases × 3 agent counts × 5 iterations × 2 index sets, 2.5 s each
    expect(plain.stepsMs).toBe(60 * 2500);
    expect(plain.overrunMs).toBe(0);
    // each database: its start, and 6 re-indexings (iterations + 1)
    expect(plain.otherMs).toBe(2 * (10_000 + 6 * 30_000));
    const calls = { meanMs: 500, longestMs: 3000 };
    const sizing = { ...calls, durationAt: stepDurations(calls, [1, 10, 50], { cpus: 2, baseMs: 2000 }) };
    const sized = segmentEstimate(segment('analytical-table'), settings, { sizing, overheads, cpus: 2 });
    expect(sized.stepsMs).toBe(20 * (500 + 10_000) + 20 * (500 + 18_800) + 20 * (500 + 88_800));
    // each step's calls in flight drain past its end: 3 s, 9.375 s, 44.375 s
    expect(sized.overrunMs).toBe(20 * 3000 + 20 * 9375 + 20 * 44_375);
    expect(estimateText(sized)).toMatch(/^about \d+ min \(steps \d+ min, calls past their steps' end \d+ min, /);
  });

  it('counts each peer’s turns and starts beside ours', () => {
    const overheads = { startMs: 10_000, reindexMs: 30_000 };
    const withPeers = { ...settings, peers: ['faucet=./faucet', 'dbhub'] };
    const estimate = segmentEstimate(segment('point-read'), withPeers, { overheads, cpus: 2 });
    // three servers take a turn at each of the 60 steps; each starts on each database, re-indexed once
    expect(estimate.stepsMs).toBe(3 * 60 * 2500);
    expect(estimate.otherMs).toBe(2 * (3 * 10_000 + 6 * 30_000));
  });

  it('learns what re-indexing costs from a segment measured', () => {
    const steps = [1, 2].flatMap((iteration) =>
      ['baseline', 'optimized'].map((indexes) =>
        step({ workload: 'point-read', agents: 1, calls: 100, iteration, indexes }),
      ),
    );
    // 4 steps of 1 s; the run took 64 s: 60 s besides, one database, 3 re-indexings after a 10 s start
    const file = result(steps, {
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-01-01T00:01:04Z',
      config: { ...result([]).config, iterations: 2 },
    });
    const learned = learnedOverheads(file, guessedOverheads(1));
    expect(learned.startMs).toBe(10_000);
    expect(learned.reindexMs).toBeCloseTo(50_000 / 3, 6);
    // the same time with two peers beside ours: three starts, one database to re-index
    const ours = file.config.targets[0]!;
    const peer = (name: string) => ({ ...ours, label: `${name} ${ours.label}`, peer: { name, command: name } });
    const withPeers = { ...file, config: { ...file.config, targets: [ours, peer('faucet'), peer('dbhub')] } };
    expect(learnedOverheads(withPeers, guessedOverheads(1)).reindexMs).toBeCloseTo(30_000 / 3, 6);
  });
});

/** Baseline and optimized on one database, `iterations` of them, optimized `ratio(i)` times as many calls. */
function indexStudy(iterations: number, ratio: (i: number) => number, extra: Partial<StepResult> = {}): ResultFile {
  const steps = Array.from({ length: iterations }, (_, i) => [
    step({ workload: 'point-read', agents: 1, calls: 1000, iteration: i + 1, indexes: 'baseline', ...extra }),
    step({
      workload: 'point-read',
      agents: 1,
      calls: Math.round(1000 * ratio(i + 1)),
      iteration: i + 1,
      indexes: 'optimized',
      ...extra,
    }),
  ]).flat();
  const file = result(steps, { config: { ...result([]).config, agents: [1], iterations: 5 } });
  return { ...file, comparisons: comparisons(steps, { targets: ['sqlite'], indexes: ['baseline', 'optimized'] }) };
}

describe('more iterations until the ratios settle', () => {
  it('pairs each iteration in the one pairing, withholding the pairs the rules leave out, with their reason', () => {
    const busy = { interference: { otherCpuShare: 0.7, stealShare: 0, ownCpuShare: 0.2, capacityMs: 2000 } };
    const file = indexStudy(5, () => 2, busy);
    const pairs = comparisonPairs(file.comparisons![0]!);
    expect(pairs).toHaveLength(5);
    expect(pairs[0]).toEqual({ iteration: 1, withheld: 'the machine was busy' });
    expect(file.comparisons![0]!.excluded).toMatchObject({ disturbed: 5 });
    const few = indexStudy(5, () => 0.005);
    expect(comparisonPairs(few.comparisons![0]!)[0]!.withheld).toBe('too few calls for a rate');
  });

  it('tells a decided segment from one whose ratios cross the band, and extends a file with more iterations', () => {
    const clear = indexStudy(5, () => 2);
    const edge = indexStudy(5, (i) => [1.05, 1.15, 1.12, 1.08, 1.13][i - 1]!);
    // a --budget study: each file a sequential design, judged at each look as the findings judge it
    const first = settlement([
      { name: 'point-read', file: sequential(clear, STUDY.batch) },
      { name: 'filtered', file: sequential(edge, STUDY.batch) },
    ]);
    // each file: its calls/s ratio and its p50 ratio (every call 1 ms: no difference)
    expect(first.map((s) => [s.name, s.unsettled])).toEqual([
      ['point-read', 0],
      ['filtered', 1],
    ]);
    expect(settlementText(first, 1.1)).toBe(
      'ratios decided against the ±10% band (a claim, or no difference): 3 of 4 (after 5 iterations: 3); 1 undecided (filtered 1)',
    );
    // two more iterations inside the band are not enough to settle it: it stays undecided on 7
    const more = extendResult(
      edge,
      indexStudy(2, () => 1.01),
      STUDY.batch,
    );
    expect(more.steps.map((s) => s.iteration)).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]);
    expect(more.config.extended).toEqual({ iterations: 7, batch: 2 });
    expect(more.config.iterations).toBe(5);
    expect(more.comparisons![0]!.iterations).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const again = settlement([{ name: 'filtered', file: more }]);
    expect(again[0]!.ratios[0]!.iterations).toBe(7);
    expect(again[0]!.ratios[0]!.looks).toBe(2);
    // a busy machine's ratios are withheld, not decided: counted apart from the undecided
    const busy = { interference: { otherCpuShare: 0.7, stealShare: 0, ownCpuShare: 0.2, capacityMs: 2000 } };
    const withheld = settlement([{ name: 'point-read', file: indexStudy(5, () => 2, busy) }]);
    expect(withheld[0]!.withheld).toBe(2);
    expect(settlementText(withheld, 1.1)).toBe(
      'ratios decided against the ±10% band (a claim, or no difference): 0 of 2; 2 withheld for too few usable pairs (point-read 2)',
    );
  });
});
