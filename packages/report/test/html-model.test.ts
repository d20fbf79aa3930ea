import { describe, expect, it } from 'vitest';
import { newHistogram, record } from '../src/histogram.js';
import { groupSteps } from '../src/render/groups.js';
import { dropEmptySeries } from '../src/render/html/charts.js';
import { MEANING, seriesColor, shade } from '../src/render/html/colors.js';
import { htmlReport } from '../src/render/html/index.js';
import { reportModel } from '../src/render/html/model.js';
import { intervalRates, percentiles, SPECTRUM_LEVELS, spectrum } from '../src/render/html/percentiles.js';
import { scalingLine } from '../src/render/html/sections/scaling.js';
import { loadStages } from '../src/render/html/sections/summary.js';
import { timeline } from '../src/render/html/sections/timeline.js';
import { tokenRecords } from '../src/render/html/sections/tokens.js';
import { indexRows } from '../src/render/ratios.js';
import { reportSections } from '../src/render/report.js';
import { toMarkdown } from '../src/render/table.js';
import { REPLAY, replayOperations, result, stats, step } from '../src/testing.js';

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
    expect(line.goodput).toEqual([100, 180, 190]);
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
    const rows = indexRows(
      result([
        step({ workload: 'filtered', agents: 1, calls: 50, indexes: 'baseline' }),
        step({ workload: 'filtered', agents: 1, calls: 450, indexes: 'optimized' }),
        step({ workload: 'echo', agents: 1, calls: 9, indexes: null }),
      ]),
    );
    expect(rows.map(({ comparison: _, ...r }) => r)).toEqual([
      {
        target: 'sqlite',
        workload: 'filtered',
        agents: 1,
        sets: ['baseline', 'optimized'],
        rates: [50, 450],
        unit: 'calls',
        speedup: '9.00x (1 iteration)',
        p50: '1.00x (1 iteration)',
      },
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

  it('shows each operation, overrun steps and committed transfers with the terminal report’s rows', () => {
    // a mix of two operations whose slow one outlasted the step, and a transfer step with its commits
    const mix = step({
      workload: 'mixed',
      agents: 4,
      calls: 1500,
      durationMs: 1000,
      operations: { get: stats(Array(1200).fill(1000)), aggregate: stats(Array(300).fill(20_000)) },
      overrun: { calls: 2, lastEndedAfterMs: 3200 },
    });
    const transfer = step({
      workload: 'transfer',
      agents: 8,
      calls: 9000,
      commits: { op: 'transfer:commit', committed: 2400, conflicts: 100, failed: 0 },
    });
    const file = result([mix, transfer]);
    const terminal = reportSections(file);
    const model = reportModel([{ label: 'a', result: file }]);
    const html = htmlReport([{ label: 'a', result: file }]);
    for (const [id, title] of [
      ['operations', 'Operations'],
      ['overrun', 'Overrun'],
      ['commits', 'Transactions'],
    ] as const) {
      const shared = terminal.find((s) => s.title.startsWith(title))!;
      const section = model.sections.find((s) => s.id === id)!;
      expect(section.title).toBe(shared.title);
      expect(section.blocks[0]!.table.head).toEqual(shared.head);
      // the same text in every cell, numbers with their value
      expect(
        section.blocks[0]!.table.rows.map((r) => r.cells.map((c) => (typeof c === 'string' ? c : c.text))),
      ).toEqual(shared.rows);
      expect(html).toContain(`<section id="${id}">`);
    }
    const rows = (id: string) => model.sections.find((s) => s.id === id)!.blocks[0]!.table.rows.map((r) => r.cells);
    expect(rows('operations')).toEqual([
      [
        'sqlite (optimized)',
        'mixed',
        { text: '4', value: 4 },
        'aggregate',
        { text: '300', value: 300 },
        { text: '20%', value: 20 },
        expect.objectContaining({ text: '83%' }),
        expect.objectContaining({ text: '20.0' }),
        expect.objectContaining({ text: '20.0' }),
      ],
      [
        '',
        '',
        '',
        'get',
        { text: '1,200', value: 1200 },
        { text: '80%', value: 80 },
        expect.objectContaining({ text: '17%' }),
        expect.objectContaining({ text: '1.00' }),
        expect.objectContaining({ text: '1.00' }),
      ],
    ]);
    expect(rows('overrun')).toEqual([
      [
        'sqlite (optimized)',
        'mixed',
        { text: '4', value: 4 },
        { text: '1', value: 1 },
        { text: '2', value: 2 },
        'last call ended 3.2 s after the step',
        'left out: overran',
      ],
    ]);
    expect(rows('commits')[0]!.slice(3, 7)).toEqual([
      { text: '2,400', value: 2400 },
      { text: '2,400', value: 2400 },
      { text: '100', value: 100 },
      { text: '4%', value: 4 },
    ]);
    // several runs on one page: each row named by its run, a row's continuation left blank
    const both = reportModel([
      { label: 'a', result: file },
      { label: 'b', result: file },
    ]);
    const operations = both.sections.find((s) => s.id === 'operations')!;
    expect(operations.blocks.map((b) => b.table.rows.map((r) => r.cells[0]))).toEqual([
      ['a: sqlite (optimized)', ''],
      ['b: sqlite (optimized)', ''],
    ]);
    // a run without them has none of these sections
    const plain = reportModel([
      { label: 'a', result: result([step({ workload: 'point-read', agents: 1, calls: 10 })]) },
    ]);
    expect(plain.sections.some((s) => ['operations', 'overrun', 'commits'].includes(s.id))).toBe(false);
  });

  it('names a replay’s rows by its trace, as the terminal report does', () => {
    const replay = REPLAY;
    const operations = replayOperations();
    const file = result(
      [step({ workload: 'replay', agents: 1, calls: 3, target: 'target', indexes: null, operations })],
      {
        config: { ...result([]).config, targets: [{ label: 'target', engine: null, url: null }], replay },
      },
    );
    const model = reportModel([{ label: 'a', result: file }]);
    const replayed = model.sections.find((s) => s.id === 'replay')!;
    expect(replayed.blocks[0]!.table.rows.map((r) => r.cells[0])).toEqual(['db.jsonl × 1', 'db.jsonl × 1']);
    const firsts = model.sections.flatMap((s) =>
      s.blocks.flatMap((b) => [b.table.head[0], ...b.table.rows.map((r) => r.cells[0])]),
    );
    expect(firsts).not.toContain('target');
    expect(firsts.some((c) => typeof c === 'string' && c.startsWith('db.jsonl'))).toBe(true);
    expect(model.sections.find((s) => s.id === 'operations')!.blocks[0]!.table.head[0]).toBe('trace');
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

const one = result([
  step({ workload: 'point-read', agents: 1, calls: 100, indexes: 'baseline', errors: { 'tool:timeout': 3 } }),
  step({ workload: 'point-read', agents: 2, calls: 150, indexes: 'baseline' }),
  step({ workload: 'point-read', agents: 1, calls: 300 }),
  step({ workload: 'point-read', agents: 2, calls: 500 }),
]);

describe('one colour per meaning', () => {
  it('gives baseline and optimized their colours when one server is shown, and each server its own among several', () => {
    expect(seriesColor({ subject: 'sqlite', indexes: 'baseline' }, ['sqlite'])).toBe(MEANING.baseline);
    expect(seriesColor({ subject: 'sqlite', indexes: 'optimized' }, ['sqlite'])).toBe(MEANING.optimized);
    const alone = seriesColor({ subject: 'sqlite', indexes: null }, ['sqlite']);
    expect([MEANING.baseline, MEANING.optimized]).not.toContain(alone);
    const servers = ['ours', 'dbhub', 'other'];
    const colours = servers.map((subject) => seriesColor({ subject, indexes: 'optimized' }, servers));
    expect(new Set(colours).size).toBe(3);
    // a server's baseline round is a paler shade of its colour
    expect(seriesColor({ subject: 'dbhub', indexes: 'baseline' }, servers)).toBe(shade(colours[1]!, 0, 2));
    expect(seriesColor({ subject: 'dbhub', indexes: null }, servers)).toBe(colours[1]);
    for (const c of colours) expect(Object.values(MEANING)).not.toContain(c);
    // a series of no listed server (the bare HTTP floor) takes none of theirs
    expect([...colours, alone]).not.toContain(seriesColor({ subject: 'bare node:http', indexes: null }, servers));
    expect(seriesColor({ subject: 'bare node:http', indexes: null }, ['sqlite'])).not.toBe(alone);
    // and two such series (each overlaid run's floor) each their own
    const floors = ['a: bare node:http', 'b: bare node:http'];
    expect(seriesColor({ subject: floors[0]!, indexes: null }, servers, floors)).not.toBe(
      seriesColor({ subject: floors[1]!, indexes: null }, servers, floors),
    );
  });

  it('shades a colour paler for the fewer agents, the most agents at full colour', () => {
    expect(shade('#0072B2', 2, 3)).toBe('#0072B2');
    expect(shade('#0072B2', 0, 1)).toBe('#0072B2');
    const pale = shade('#0072B2', 0, 3);
    expect(pale).toMatch(/^#[0-9A-F]{6}$/);
    const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
    const full = rgb('#0072B2');
    for (const [i, c] of rgb(pale).entries()) expect(c).toBeGreaterThan(full[i]!);
  });

  it('draws a round in the same colour on every chart of the page', () => {
    const model = reportModel([{ label: 'a', result: one }]);
    const charts = model.sections.flatMap((s) => s.blocks.flatMap((b) => (b.chart ? [b.chart] : [])));
    const colourOf = (profile: string) =>
      new Set(
        charts.flatMap((c) =>
          c.series
            // the spectrum's line of the most agents is the round's full colour; fewer agents are paler
            .filter((x) => (x.label.includes(`(${profile})`) && !x.label.endsWith('× 1')) || x.label === profile)
            .map((x) => x.color),
        ),
      );
    expect(colourOf('baseline')).toEqual(new Set([MEANING.baseline]));
    expect(colourOf('optimized')).toEqual(new Set([MEANING.optimized]));
  });

  it('says which way is better on every axis of a quantity; calls/s is linear but for the index chart', () => {
    const model = reportModel([{ label: 'a', result: one }]);
    const axes = model.sections.flatMap((s) => s.blocks.flatMap((b) => b.chart?.axes ?? []));
    expect(axes.length).toBeGreaterThan(0);
    for (const a of axes.filter((x) => x.scale !== 'agents')) expect(a.label).toMatch(/(higher|lower) is better$/);
    // calls/s is a quantity: its axes are linear, so they start at 0; but baseline and optimized
    // rounds differ a hundredfold: the index chart's axis is a log one, so both show
    for (const s of model.sections)
      for (const a of s.blocks.flatMap((b) => b.chart?.axes ?? []).filter((x) => x.scale === 'rate'))
        expect(a.log, s.id).toBe(s.id === 'indexes' ? 10 : undefined);
  });

  it('leaves out a series with no value anywhere, with its column', () => {
    const chart = {
      id: 'c',
      title: 't',
      x: { label: 'x' },
      axes: [{ scale: 'n', label: 'n' }],
      series: ['a', 'b', 'c'].map((label) => ({ label, scale: 'n', color: '#000000' })),
      data: [
        [1, 2],
        [1, null],
        [null, null],
        [0, 3],
      ],
    };
    const kept = dropEmptySeries(chart);
    expect(kept.series.map((s) => s.label)).toEqual(['a', 'c']);
    expect(kept.data).toEqual([
      [1, 2],
      [1, null],
      [0, 3],
    ]);
    expect(dropEmptySeries(kept)).toBe(kept);
  });
});

describe('several servers side by side', () => {
  const targets = ['ours', 'theirs'];
  const side = result(
    targets.flatMap((target, t) =>
      [1, 2].map((agents) =>
        step({ target, indexes: null, workload: 'point-read', agents, calls: (t + 1) * 100 * agents }),
      ),
    ),
    {
      config: {
        ...result([]).config,
        targets: targets.map((label) => ({ label, engine: null, url: `http://127.0.0.1/${label}` })),
        indexes: [],
      },
      agreement: [
        {
          workload: 'point-read',
          reference: 'ours',
          target: 'theirs',
          calls: 15,
          mismatches: 2,
          differences: ['row 3'],
        },
      ],
      tokens: targets.map((target) => ({
        target,
        tokenizer: 'o200k_base',
        toolsList: { bytes: 2000, tokens: 500 },
        sessionStart: { bytes: 6000, tokens: 1500 },
        calls: [{ workload: 'point-read', calls: 15, bytes: { p50: 200, max: 300 }, tokens: { p50: 50, max: 80 } }],
      })),
    },
  );
  const model = reportModel([{ label: 'a', result: side }]);
  const section = (id: string) => model.sections.find((s) => s.id === id)!;

  it('compares the servers with the terminal’s numbers: each one’s calls/s and p50, each in its own colour', () => {
    const block = section('servers').blocks[0]!;
    expect(block.chart!.series.map((s) => s.label)).toEqual(targets);
    expect(block.chart!.data.slice(1)).toEqual([
      [100, 200],
      [200, 400],
    ]);
    expect(block.table.head).toEqual([
      'workload',
      'agents',
      'ours calls/s',
      'ours p50 ms',
      'theirs calls/s',
      'theirs p50 ms',
      'theirs against ours',
    ]);
    expect(block.table.rows[1]!.cells.slice(0, 3)).toEqual(['point-read', '2', { text: '200', value: 200 }]);
    // the terminal's "Servers compared" holds the same numbers
    expect(toMarkdown(reportSections(side))).toMatch(
      /\| point-read \| 2 \| 200 \/s, p50 1\.00 \| 400 \/s, p50 1\.00, 2\.00x \(1 iteration\) \|/,
    );
    // and its ratio is the HTML table's
    expect(block.table.rows[1]!.cells.at(-1)).toMatchObject({ text: '2.00x (1 iteration)' });
    // each server has its colour, the same on the spectrum, the scaling lines and the token bars
    const colours = (label: string) =>
      new Set(
        model.sections.flatMap((s) =>
          s.blocks.flatMap((b) =>
            (b.chart?.series ?? [])
              .filter((x) => x.label === label || x.label === `${label} × 2` || x.label.startsWith(`${label} calls/s`))
              .map((x) => x.color),
          ),
        ),
      );
    expect(colours('ours').size).toBe(1);
    expect(colours('theirs').size).toBe(1);
    expect([...colours('ours')]).not.toEqual([...colours('theirs')]);
  });

  it('shows answer agreement and each answer’s tokens beside its latency, as the terminal does', () => {
    expect(section('agreement').blocks[0]!.table.rows.map((r) => r.cells)).toEqual([
      ['point-read', 'ours', 'theirs', { text: '15', value: 15 }, { text: '2', value: 2 }, 'DISAGREE', 'row 3'],
    ]);
    const perCall = section('tokens').blocks[1]!.table;
    expect(perCall.head).toEqual([
      'workload',
      'target',
      'bytes p50 / max',
      'tokens p50 / max',
      'latency p50 ms (fewest agents)',
    ]);
    expect(perCall.rows.map((r) => r.cells.slice(0, 4))).toEqual(
      targets.map((t) => ['point-read', t, '200 / 300', '50 / 80']),
    );
    // a bar per server for each count, in its colour
    const tokens = section('tokens').blocks[0]!.chart!;
    expect(tokens.series.map((s) => s.label)).toEqual(targets);
    expect(tokens.data[1]).toEqual([500, 1500, 50]);
  });

  it('has no such sections for a run of one server', () => {
    const alone = reportModel([{ label: 'a', result: one }]);
    expect(alone.sections.map((s) => s.id)).not.toContain('servers');
    expect(alone.sections.map((s) => s.id)).not.toContain('agreement');
  });
});
