import { describe, expect, it } from 'vitest';
import { overview } from '../src/render/overview.js';
import { knee, reportHeader, reportSections } from '../src/render/report.js';
import { toMarkdown, toTerminal, wrap } from '../src/render/table.js';
import { REPLAY, replayOperations, result, step } from '../src/testing.js';

/** Report rendering is pure: a hand-made result file in, known numbers out. */
describe('the report', () => {
  it('shows goodput, attempts and errors apart, with percentiles from the histogram', () => {
    const [latency] = reportSections(
      result([step({ workload: 'point-read', agents: 1, calls: 300, errors: { 'tool:timeout': 100 } })]),
    );
    expect(latency!.title).toMatch(/Latency and throughput/);
    expect(latency!.rows[0]).toEqual([
      'sqlite (optimized)',
      'point-read',
      '1',
      '300',
      // one iteration: no spread to show
      '–',
      '400',
      '1.00',
      '1.00',
      '1.00',
      '1.00',
      '100',
    ]);
  });

  it('names a replay’s rows by its trace, and the server after it where the run named one', () => {
    const replay = REPLAY;
    const operations = replayOperations();
    const file = result(
      [
        step({ workload: 'replay', agents: 1, calls: 3, target: 'target', indexes: null, operations }),
        step({ workload: 'replay', agents: 1, calls: 3, target: 'sqlite', indexes: 'optimized', operations }),
      ],
      {
        config: {
          ...result([]).config,
          targets: [
            { label: 'sqlite', engine: 'sqlite', url: 'sqlite:x' },
            { label: 'target', engine: null, url: 'http://127.0.0.1:1/mcp' },
          ],
          workloads: ['replay'],
          replay,
        },
      },
    );
    const sections = reportSections(file);
    const latency = sections.find((s) => s.title.startsWith('Latency'))!;
    expect(latency.head[0]).toBe('trace');
    expect(latency.rows.map((r) => r[0])).toEqual(['db.jsonl', 'db.jsonl on sqlite (optimized)']);
    const methods = sections.find((s) => s.title.startsWith('Replay: latency'))!;
    expect(new Set(methods.rows.map((r) => r[0]))).toEqual(
      new Set(['db.jsonl × 1', 'db.jsonl on sqlite (optimized) × 1']),
    );
    // no row anywhere is named by the bare word the run gave the unnamed server
    for (const s of sections) for (const row of s.rows) expect(row[0]).not.toMatch(/^target\b/);
    const summary = overview(file, 200);
    expect(summary).toMatch(/replay\s+│?\s*db\.jsonl\s/);
    expect(summary).not.toMatch(/│ target /);
    // a run that is not a replay keeps its targets' names
    const plain = reportSections(result([step({ workload: 'point-read', agents: 1, calls: 3, target: 'target' })]));
    expect(plain[0]!.head[0]).toBe('target');
    expect(plain[0]!.rows[0]![0]).toBe('target (optimized)');
  });

  it('marks a step whose last call ended well after it, not the tail every closed loop has', () => {
    const sections = reportSections(
      result([
        step({ workload: 'analytical-table', agents: 1, calls: 3, overrun: { calls: 1, lastEndedAfterMs: 3200 } }),
        // 1 s steps: 40 ms after the end is the last calls' ordinary tail
        step({ workload: 'point-read', agents: 4, calls: 900, overrun: { calls: 4, lastEndedAfterMs: 40 } }),
        // noticeably late, yet within half the step: listed, and kept in the ratios
        step({ workload: 'filtered', agents: 1, calls: 90, overrun: { calls: 1, lastEndedAfterMs: 300 } }),
      ]),
    );
    const overrun = sections.find((s) => s.title.startsWith('Overrun'))!;
    expect(overrun.rows).toEqual([
      [
        'sqlite (optimized)',
        'analytical-table',
        '1',
        '1',
        '1',
        'last call ended 3.2 s after the step',
        'left out: overran',
      ],
      ['sqlite (optimized)', 'filtered', '1', '1', '1', 'last call ended 300 ms after the step', 'kept'],
    ]);
    const none = reportSections(result([step({ workload: 'point-read', agents: 1, calls: 9 })]));
    expect(none.some((s) => s.title.startsWith('Overrun'))).toBe(false);
  });

  it('computes scaling efficiency against one agent, and the knee', () => {
    const steps = [
      step({ workload: 'point-read', agents: 1, calls: 100 }),
      step({ workload: 'point-read', agents: 2, calls: 180 }),
      step({ workload: 'point-read', agents: 4, calls: 190 }),
    ];
    const scaling = reportSections(result(steps)).find((s) => s.title.startsWith('Concurrency scaling'))!;
    expect(scaling.rows[0]).toEqual([
      'sqlite (optimized)',
      'point-read',
      '1: 100 (100%) · 2: 180 (90%) · 4: 190 (48%)',
      '2 agents',
    ]);
    expect(knee([1, 2, 4], [100, 200, 400])).toBe('none up to 4 agents');
    // no growth from the first count: that is no knee
    expect(knee([1, 10, 50], [1000, 1050, 990])).toBe('none: no gain past 1 agent');
    expect(knee([1, 10, 50], [1000, 5000, 5200])).toBe('10 agents');
    // a dip that a later count climbs out of is no knee
    expect(knee([1, 4, 16], [5620, 6163, 10023])).toBe('none up to 16 agents');
  });

  it('reports the index speed-up as the ratio of the two rounds paired by iteration', () => {
    const steps = [
      step({ workload: 'filtered', agents: 1, calls: 50, indexes: 'baseline' }),
      step({ workload: 'filtered', agents: 1, calls: 450, indexes: 'optimized' }),
    ];
    const speedup = reportSections(result(steps)).find((s) => s.title.startsWith('Index speed-up'))!;
    expect(speedup.rows[0]?.slice(0, 6)).toEqual(['sqlite', 'filtered', '1', '50.0', '450', '9.00x (1 iteration)']);
  });

  it('judges each paired ratio by the claims rules: a difference, no difference, or undecided', () => {
    const base = { target: 'sqlite', indexes: 'baseline' };
    const other = { target: 'sqlite', indexes: 'optimized' };
    const steps = [1, 2, 3, 4, 5].flatMap((iteration) => [
      step({ workload: 'filtered', agents: 1, calls: 100, indexes: 'baseline', iteration }),
      step({ workload: 'filtered', agents: 1, calls: 130, indexes: 'optimized', iteration }),
    ]);
    const file = {
      ...result(steps, { config: { ...result([]).config, iterations: 5 } }),
      comparisons: [
        {
          kind: 'indexes' as const,
          workload: 'filtered',
          agents: 1,
          base,
          other,
          iterations: [1, 2, 3, 4, 5],
          // as the run paired them: the report shows the file's own comparison
          rate: [1.32, 1.2, 1.58, 1.4, 1.25],
          p50: [0.97, 1.05, 1.02, 1.0, 0.99],
          withheld: [],
        },
      ],
    };
    const speedup = reportSections(file).find((s) => s.title.startsWith('Index speed-up'))!;
    // the rate ratio wholly outside the ±10% band and sure among the run's 2 ratios; the p50 inside it
    expect(speedup.rows[0]?.slice(5)).toEqual(['1.32x [1.20–1.58]', 'no difference (0.97–1.05)']);
    expect(speedup.note).toMatch(/the run's 2 ratios judged together against a ±10% band/);
    // p50s of 0.91 to 1.12 cross the band's edges: undecided
    file.comparisons[0]!.p50 = [0.91, 1.05, 1.12, 1.0, 0.97];
    const crossing = reportSections({ ...file }).find((s) => s.title.startsWith('Index speed-up'))!;
    expect(crossing.rows[0]?.[6]).toBe('~ (0.91–1.12)');
  });

  it('merges iterations: median goodput with its spread', () => {
    const steps = [100, 120, 80].map((calls, i) => step({ workload: 'mixed', agents: 1, calls, iteration: i + 1 }));
    const [latency] = reportSections(result(steps));
    expect(latency!.rows[0]?.slice(3, 5)).toEqual(['100', '40%']);
    expect(toMarkdown([latency!])).toMatch(/\| sqlite \(optimized\) \| mixed \| 1 \| 100 \| 40% \|/);
  });
});

describe('the terminal layout', () => {
  const section = {
    title: 'Latency and throughput per workload (goodput = successful calls/s; errors are counted, never timed)',
    head: [
      'target',
      'workload',
      'agents',
      'goodput/s',
      'spread',
      'attempts/s',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'p99.9 ms',
      'errors',
    ],
    rows: [
      [
        'sqlite 2025 session (optimized)',
        'point-read',
        '16',
        '12,345',
        '3%',
        '12,400',
        '0.71',
        '1.20',
        '4.23',
        '9.10',
        '0',
      ],
    ],
  };

  it('keeps a table whole without a width (a file or a pipe)', () => {
    const text = toTerminal([section]);
    expect(text.split('\n').some((line) => line.length > 100)).toBe(true);
    expect(text).toContain('│ sqlite 2025 session (optimized) │');
  });

  it('lays a table out a row per block when it is wider than the terminal, every line within it', () => {
    for (const width of [60, 80, 99]) {
      const text = toTerminal([section], width);
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(width);
      expect(text).toMatch(/^ {2}target +sqlite 2025 session \(optimized\)$/m);
      expect(text).toMatch(/^ {2}p99 ms +4\.23$/m);
    }
    // a table that fits stays a table
    expect(toTerminal([{ title: 't', head: ['a', 'b'], rows: [['1', '2']] }], 80)).toContain('│ a │');
  });

  it('wraps the header to the terminal, and leaves it whole for a file', () => {
    const r = result([step({ workload: 'point-read', agents: 16, calls: 10 })]);
    expect(
      reportHeader(r)
        .split('\n')
        .some((line) => line.length > 100),
    ).toBe(true);
    const wrapped = reportHeader(r, 80);
    for (const line of wrapped.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(wrapped.replaceAll('\n', ' ')).toBe(reportHeader(r).replaceAll('\n', ' '));
  });

  it('wraps text at spaces, and cuts a word longer than the line', () => {
    expect(wrap('one two three four', 9)).toBe('one two\nthree\nfour');
    expect(wrap('abcdefghij', 4)).toBe('abcd\nefgh\nij');
  });
});
