import { newHistogram, record } from '@mcp-db-bench/agent';
import { describe, expect, it } from 'vitest';
import { htmlReport } from '../src/render/html/index.js';
import { reportModel } from '../src/render/html/model.js';
import { intervalRates, percentiles, SPECTRUM_LEVELS, spectrum } from '../src/render/html/numbers.js';
import { indexPairs } from '../src/render/html/sections/indexes.js';
import { scalingLine } from '../src/render/html/sections/scaling.js';
import { loadStages } from '../src/render/html/sections/summary.js';
import { timeline } from '../src/render/html/sections/timeline.js';
import { tokenRecords } from '../src/render/html/sections/tokens.js';
import { groupSteps } from '../src/render/report.js';
import { result, stats, step } from './support/results.js';

/** The HTML report's model is pure: hand-made result files in, known chart data and numbers out. */

/** 1, 2, … n µs: the percentile q of it is q·n µs. */
function uniform(n: number) {
  const h = newHistogram();
  for (let us = 1; us <= n; us++) record(h, us);
  return h;
}

describe('the latency spectrum', () => {
  it('is read at 1/(1-q) from 2 (p50) to 10,000 (p99.99), evenly on a log axis', () => {
    expect(SPECTRUM_LEVELS[0]).toBe(2);
    expect(SPECTRUM_LEVELS.at(-1)).toBe(10_000);
    for (const decade of [10, 100, 1000]) expect(SPECTRUM_LEVELS).toContain(decade);
    for (let i = 1; i < SPECTRUM_LEVELS.length; i++)
      expect(SPECTRUM_LEVELS[i]!).toBeGreaterThan(SPECTRUM_LEVELS[i - 1]!);
  });

  it('gives each percentile in ms, and nothing where the calls are too few to resolve it', () => {
    const values = spectrum(uniform(1000), [2, 10, 100, 1000, 10_000]);
    // HdrHistogram answers within 0.1% above the recorded value
    expect(values[0]).toBeCloseTo(0.5, 2);
    expect(values[1]).toBeCloseTo(0.9, 2);
    expect(values[2]).toBeCloseTo(0.99, 2);
    expect(values[3]).toBeCloseTo(0.999, 2);
    expect(values[4]).toBeNull();
    const p = percentiles(uniform(1000));
    expect(p.p99).toBeCloseTo(0.99, 2);
    expect(p.p9999).toBeNull();
    expect(p.max).toBeCloseTo(1, 2);
  });
});

describe('scaling, timeline and index pairs', () => {
  const sweep = [
    step({ workload: 'point-read', agents: 1, calls: 100 }),
    step({ workload: 'point-read', agents: 2, calls: 180 }),
    step({ workload: 'point-read', agents: 4, calls: 190 }),
  ];

  it('computes scaling efficiency against the first agent count, and the knee', () => {
    const line = scalingLine(groupSteps(sweep));
    expect(line.agents).toEqual([1, 2, 4]);
    expect(line.throughput).toEqual([100, 180, 190]);
    expect(line.efficiency.map((e) => Number(e.toFixed(3)))).toEqual([1, 0.9, 0.475]);
    expect(line.knee).toBe(2);
    expect(line.p99Ms[0]).toBeCloseTo(1, 2);
    expect(scalingLine(groupSteps(sweep.slice(0, 2))).knee).toBeUndefined();
  });

  it('turns intervals into calls/s over each interval’s own length, the last one cut at the step’s end', () => {
    const s = step({
      workload: 'mixed',
      agents: 1,
      calls: 250,
      durationMs: 2500,
      intervals: [0, 1000, 2000].map((atMs, i) => ({ atMs, calls: [100, 100, 50][i]!, errors: 0, ...stats([1000]) })),
    });
    expect(intervalRates(s)).toEqual([
      { startMs: 0, lengthMs: 1000, rate: 100 },
      { startMs: 1000, lengthMs: 1000, rate: 100 },
      { startMs: 2000, lengthMs: 500, rate: 100 },
    ]);
  });

  it('lays a round’s steps end to end, marking where each begins, with agents only where intervals carry them', () => {
    const interval = (atMs: number, calls: number, extra = {}) => ({
      atMs,
      calls,
      errors: 0,
      ...stats(Array(calls).fill(2000)),
      ...extra,
    });
    const first = step({
      workload: 'point-read',
      agents: 1,
      calls: 30,
      durationMs: 2000,
      intervals: [interval(0, 10), interval(1000, 20)],
    });
    const second = step({
      workload: 'point-read',
      agents: 4,
      calls: 40,
      durationMs: 1000,
      intervals: [interval(0, 40, { agents: 4, rate: 50 })],
    });
    const t = timeline([first, second]);
    expect(t.markers).toEqual([
      { x: 0, label: 'point-read × 1' },
      { x: 2, label: 'point-read × 4' },
    ]);
    expect(t.points.map((p) => [p.x, p.rate, p.agents, p.intended])).toEqual([
      [0.5, 10, null, null],
      [1.5, 20, null, null],
      [2.5, 40, 4, 50],
    ]);
    expect(t.points[0]!.p99Ms).toBeCloseTo(2, 2);
  });

  it('names the load stages of a staged run, and nothing for a run without them', () => {
    expect(loadStages(result([]))).toBeUndefined();
    const staged = result([]);
    staged.config.stages = {
      kind: 'agents',
      stages: [
        { durationMs: 5000, target: 1 },
        { durationMs: 2000, target: 16 },
      ],
    };
    expect(loadStages(staged)).toBe('agents 5s:1,2s:16');
    const model = reportModel([{ label: 'a', result: staged }]);
    expect(model.runs[0]!.facts.find((f) => f.key === 'stages')?.text).toBe('agents 5s:1,2s:16');
  });

  it('pairs the baseline and optimized rounds of the same step, with the speed-up', () => {
    const pairs = indexPairs(
      groupSteps([
        step({ workload: 'filtered', agents: 1, calls: 50, indexes: 'baseline' }),
        step({ workload: 'filtered', agents: 1, calls: 450, indexes: 'optimized' }),
        step({ workload: 'echo', agents: 1, calls: 9, indexes: null }),
      ]),
    );
    expect(pairs).toEqual([
      { target: 'sqlite', workload: 'filtered', agents: 1, baseline: 50, optimized: 450, speedup: 9 },
    ]);
  });

  it('reads token counts only where a result file has them: tool list, session start, each workload’s median answer', () => {
    expect(tokenRecords(result([]))).toEqual([]);
    const payload = (bytes: number, tokens: number) => ({ bytes, tokens });
    const tokens = [
      {
        target: 'sqlite',
        tokenizer: 'gpt-tokenizer o200k_base',
        toolsList: payload(5100, 1263),
        sessionStart: payload(15000, 3796),
        calls: [{ workload: 'point-read', calls: 30, bytes: { p50: 200, max: 260 }, tokens: { p50: 54, max: 70 } }],
      },
    ];
    expect(tokenRecords({ ...result([]), tokens })).toEqual([
      { target: 'sqlite', counts: { 'tools/list': 1263, 'session start': 3796, 'point-read p50': 54 } },
    ]);
  });
});

describe('the report model and page', () => {
  const steps = [
    step({ workload: 'point-read', agents: 1, calls: 100, indexes: 'baseline', errors: { 'tool:timeout': 3 } }),
    step({ workload: 'point-read', agents: 2, calls: 150, indexes: 'baseline' }),
    step({ workload: 'point-read', agents: 1, calls: 300 }),
    step({ workload: 'point-read', agents: 2, calls: 500 }),
  ];
  const one = result(steps);

  it('sums the summary from the steps, and charts every section that has data', () => {
    const model = reportModel([{ label: 'a', result: one }]);
    const facts = Object.fromEntries(model.runs[0]!.facts.map((f) => [f.key, f.value]));
    expect(facts).toMatchObject({ steps: 4, calls: 1050, errors: 3, 'measured-seconds': 4 });
    expect(model.sections.map((s) => s.id)).toEqual(['latency', 'scaling', 'timeline', 'indexes', 'errors']);
    const errors = model.sections.find((s) => s.id === 'errors')!.blocks[0]!;
    expect(errors.chart!.data).toEqual([[0], [3]]);
    const spectrumChart = model.sections[0]!.blocks[0]!.chart!;
    expect(spectrumChart.series.map((s) => s.label)).toEqual([
      'sqlite (baseline) × 1',
      'sqlite (baseline) × 2',
      'sqlite (optimized) × 1',
      'sqlite (optimized) × 2',
    ]);
    // every series has a value for every x
    for (const column of spectrumChart.data) expect(column).toHaveLength(SPECTRUM_LEVELS.length);
  });

  it('overlays several runs: each series once per run, named by the run', () => {
    const slower = result(steps.map((s) => ({ ...s, calls: s.calls / 2 })));
    const model = reportModel([
      { label: 'main', result: one },
      { label: 'branch', result: slower },
    ]);
    const scaling = model.sections.find((s) => s.id === 'scaling')!.blocks[0]!.chart!;
    expect(scaling.series.filter((s) => s.scale === 'rate').map((s) => s.label)).toEqual([
      'main: sqlite (baseline) calls/s',
      'main: sqlite (optimized) calls/s',
      'branch: sqlite (baseline) calls/s',
      'branch: sqlite (optimized) calls/s',
    ]);
    expect(scaling.data[3]).toEqual([300, 500]);
    expect(scaling.data[7]).toEqual([150, 250]);
  });

  it('gives every chart its own id, also when labels slug alike (case, punctuation, non-ASCII)', () => {
    const labels = ['Main', 'main', 'run (2)', 'run-2', 'основа', 'ветка'];
    const model = reportModel(labels.map((label) => ({ label, result: one })));
    const ids = model.sections.flatMap((s) => s.blocks.flatMap((b) => (b.chart ? [b.chart.id] : [])));
    expect(new Set(ids).size).toBe(ids.length);
    // one index chart per run, each its own
    const indexes = model.sections.find((s) => s.id === 'indexes')!.blocks.map((b) => b.chart!);
    expect(indexes.map((c) => c.title)).toEqual(labels.map((l) => `${l}: calls/s, baseline and optimized indexes`));
    expect(new Set(indexes.map((c) => c.id)).size).toBe(labels.length);
    // the first keeps its readable id; the page has a slot for every chart, in order
    expect(indexes[0]!.id).toBe('indexes-main');
    const html = htmlReport(labels.map((label) => ({ label, result: one })));
    const slots = [...html.matchAll(/<div class="chart" data-chart="([^"]+)">/g)].map((m) => m[1]);
    expect(slots).toEqual(ids);
  });

  it('marks each overlaid run’s own step starts on a shared timeline, once when they agree', () => {
    const timelineOf = (runs: { label: string; result: ReturnType<typeof result> }[]) =>
      reportModel(runs)
        .sections.find((s) => s.id === 'timeline')!
        .blocks.map((b) => b.chart!.markers);
    const interval = (atMs: number) => ({ atMs, calls: 10, errors: 0, ...stats(Array(10).fill(1000)) });
    const shortSteps = result(
      [1, 2].map((agents) =>
        step({ workload: 'point-read', agents, calls: 10, durationMs: 1000, intervals: [interval(0)] }),
      ),
    );
    const longSteps = result(
      [1, 2].map((agents) =>
        step({ workload: 'point-read', agents, calls: 30, durationMs: 3000, intervals: [0, 1000, 2000].map(interval) }),
      ),
    );
    expect(
      timelineOf([
        { label: 'a', result: shortSteps },
        { label: 'b', result: shortSteps },
      ]),
    ).toEqual([
      [
        { x: 0, label: 'point-read × 1' },
        { x: 1, label: 'point-read × 2' },
      ],
    ]);
    expect(
      timelineOf([
        { label: 'short', result: shortSteps },
        { label: 'long', result: longSteps },
      ]),
    ).toEqual([
      [
        { x: 0, label: 'short: point-read × 1' },
        { x: 0, label: 'long: point-read × 1' },
        { x: 1, label: 'short: point-read × 2' },
        { x: 3, label: 'long: point-read × 2' },
      ],
    ]);
  });

  it('shows sessions refused and re-initialized, as the terminal report does, and no such section without them', () => {
    const churn = step({
      workload: 'session-churn',
      agents: 10,
      calls: 400,
      errors: { http_503: 3 },
      reinitialized: 7,
    });
    const model = reportModel([
      { label: 'a', result: result([churn, step({ workload: 'point-read', agents: 1, calls: 10 })]) },
    ]);
    const sessions = model.sections.find((s) => s.id === 'sessions')!;
    expect(sessions.blocks[0]!.table.head).toEqual([
      'target',
      'workload',
      'agents',
      'operations/s',
      'refused',
      're-initialized',
      'other errors',
    ]);
    expect(sessions.blocks[0]!.table.rows.map((r) => r.cells)).toEqual([
      [
        'sqlite (optimized)',
        'session-churn',
        '10',
        { text: '400', value: 400 },
        { text: '3', value: 3 },
        { text: '7', value: 7 },
        { text: '0', value: 0 },
      ],
    ]);
    const plain = reportModel([
      { label: 'a', result: result([step({ workload: 'point-read', agents: 1, calls: 10 })]) },
    ]);
    expect(plain.sections.some((s) => s.id === 'sessions')).toBe(false);
  });

  it('says there were no errors, without an empty chart, when no call failed', () => {
    const model = reportModel([{ label: 'a', result: result([step({ workload: 'echo', agents: 1, calls: 10 })]) }]);
    const errors = model.sections.find((s) => s.id === 'errors')!;
    expect(errors.note).toMatch(/No call failed/);
    expect(errors.blocks.every((b) => b.chart === undefined)).toBe(true);
  });

  it('is one self-contained page: uPlot inlined, no address to fetch, every chart a spec, text escaped', () => {
    const hostile = result(steps.map((s) => ({ ...s, target: '</script><img src=x onerror=alert(1)>' })));
    const html = htmlReport([{ label: 'run', result: hostile }]);
    expect(html).toContain('uPlot');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    expect(html).not.toContain('<img src=x');
    const specs = JSON.parse(/<script type="application\/json" id="chart-specs">(.*?)<\/script>/s.exec(html)![1]!) as {
      id: string;
    }[];
    const slots = [...html.matchAll(/<div class="chart" data-chart="([^"]+)">/g)].map((m) => m[1]);
    expect(specs.map((s) => s.id)).toEqual(slots);
    expect(new Set(slots).size).toBe(slots.length);
  });
});
