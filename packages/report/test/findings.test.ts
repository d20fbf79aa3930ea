import type { Comparison, ResultFile, StepResult } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import {
  concurrencyScaling,
  indexEffect,
  sessionStart,
  shares,
  studyFindings,
  timeShares,
  transfers,
} from '../src/findings/findings.js';
import { findingsHtml, findingsMarkdown } from '../src/findings/page.js';
import { result, stats, step } from '../src/testing.js';

/** The findings are pure: hand-made study result files in, known ratios, shares and commands out. */

const TARGETS = [
  { label: 'sqlite', engine: 'sqlite', url: 'sqlite:x' },
  { label: 'postgres', engine: 'postgres', url: 'postgres://x' },
];

const text = (c: unknown) => (typeof c === 'string' ? c : (c as { text: string }).text);

function comparison(partial: Partial<Comparison> & Pick<Comparison, 'workload' | 'agents' | 'throughput'>): Comparison {
  return {
    kind: 'indexes',
    base: { target: 'sqlite', indexes: 'baseline' },
    other: { target: 'sqlite', indexes: 'optimized' },
    iterations: partial.throughput.map((_, i) => i + 1),
    p50: partial.throughput,
    ...partial,
  };
}

/** A read segment: point-read at 1 and 10 agents on two databases, 5 iterations, both index profiles. */
function reads(): ResultFile {
  const steps: StepResult[] = [];
  for (const target of ['sqlite', 'postgres'])
    for (const iteration of [1, 2, 3, 4, 5])
      for (const agents of [1, 10])
        for (const indexes of ['baseline', 'optimized'])
          steps.push(
            step({
              target,
              indexes,
              iteration,
              workload: 'point-read',
              agents,
              // optimized twice as fast; 10 agents three times 1 agent, give or take the iteration
              calls: (indexes === 'optimized' ? 200 : 100) * (agents === 10 ? 3 : 1) + iteration,
            }),
          );
  return result(steps, {
    config: {
      ...result([]).config,
      targets: TARGETS,
      workloads: ['point-read'],
      agents: [1, 10],
      iterations: 5,
      command: 'mcp-db-bench run --workloads point-read --agents 1,10',
    },
    comparisons: [
      comparison({ workload: 'point-read', agents: 1, throughput: [2, 2.1, 1.9, 2.2, 2.05] }),
      comparison({
        workload: 'point-read',
        agents: 1,
        base: { target: 'postgres', indexes: 'baseline' },
        other: { target: 'postgres', indexes: 'optimized' },
        throughput: [0.9, 1.2, 1.0, 1.1, 0.95],
      }),
    ],
    decomposition: [
      {
        target: 'sqlite',
        operation: 'get orders by id',
        raw: stats([100, 100, 100]),
        echo: stats([200, 200, 200]),
        full: stats([400, 400, 400]),
      },
    ],
    sessionInit: [
      { target: 'sqlite', indexes: 'baseline', cold: stats([3000, 3000]), warm: stats([1000, 1000]) },
      { target: 'postgres', indexes: 'baseline', cold: stats([4000, 4000]), warm: stats([2000, 2000]) },
    ],
  });
}

function transferFile(): ResultFile {
  const steps = ['sqlite', 'postgres'].flatMap((target) =>
    [1, 2, 3, 4, 5].map((iteration) =>
      step({
        target,
        iteration,
        workload: 'transfer',
        agents: 1,
        calls: target === 'sqlite' ? 300 : 600,
        errors: target === 'postgres' ? { deadlock: 1 } : {},
        verification: {
          marker: 'm',
          ok: target === 'sqlite',
          acknowledged: { insert: 0, update: 0, delete: 0, transfer: 1 },
          failed: {},
          unknown: 0,
          lost: 0,
          phantom: 0,
          wrongValues: 0,
          accounts: { checked: 1, mismatched: 0 },
          money: { before: '1', after: '1' },
          problems: [],
        } as never,
      }),
    ),
  );
  return result(steps, {
    config: {
      ...result([]).config,
      targets: TARGETS,
      workloads: ['transfer'],
      agents: [1],
      iterations: 5,
      command: 'mcp-db-bench run --workloads transfer',
    },
    comparisons: [
      comparison({
        kind: 'targets',
        workload: 'transfer',
        agents: 1,
        base: { target: 'sqlite', indexes: 'optimized' },
        other: { target: 'postgres', indexes: 'optimized' },
        throughput: [2, 2, 2, 2, 2],
      }),
    ],
  });
}

describe('the study findings', () => {
  it('gives the index effect with its interval, and "no difference measured" where it crosses 1.0', () => {
    const f = indexEffect([reads()])!;
    expect(f.rows.map((r) => [text(r[0]), text(r[3]), text(r[4]), text(r[5])])).toEqual([
      ['sqlite', '103', '203', '2.05x [1.90–2.20]'],
      ['postgres', '103', '203', '~ (0.90–1.20)'],
    ]);
    expect(f.chart.axes[0]!.log).toBe(10);
    expect(f.chart.series.map((s) => s.label)).toEqual(['sqlite × 1', 'postgres × 1']);
    expect(new Set(f.chart.series.map((s) => s.color)).size).toBe(2);
    expect(f.chart.data).toEqual([[0], [2.05], [1]]);
    expect(f.chart.series[0]!.intervals).toEqual([[1.9, 2.2]]);
    expect(f.commands).toEqual(['mcp-db-bench run --workloads point-read --agents 1,10']);
  });

  it('scales concurrency against the fewest agents, paired per iteration', () => {
    const f = concurrencyScaling([reads()])!;
    const sqlite = f.rows.filter((r) => r[0] === 'sqlite').map((r) => r.map(text));
    expect(sqlite[0]!.slice(2)).toEqual(['1', '203', '1 (reference)']);
    // (600 + i) / (200 + i) per iteration, i = 1..5: 2.99, 2.98, 2.97, 2.96, 2.95
    expect(sqlite[1]!.slice(2, 4)).toEqual(['10', '603']);
    expect(sqlite[1]![4]).toBe('2.97x [2.95–2.99]');
    expect(f.chart.x.log).toBe(2);
    expect(f.chart.data[0]).toEqual([1, 10]);
  });

  it('splits the time into shares that add to 100%', () => {
    for (const [raw, echo, full] of [
      [100, 200, 400],
      [300, 300, 400],
      [0, 0, 0],
      [1, 0, 10],
    ] as const) {
      const s = shares(raw, echo, full);
      if (full > 0) expect(s.database + s.protocol + s.rest).toBeCloseTo(1, 12);
      expect(s.rest).toBeGreaterThanOrEqual(0);
    }
    expect(shares(300, 300, 400)).toEqual({ database: 0.5, protocol: 0.5, rest: 0 });
    const f = timeShares([reads()])!;
    expect(f.rows[0]!.slice(5).map(text)).toEqual(['25%', '50%', '25%']);
  });

  it('gives session start per database', () => {
    const f = sessionStart([reads()])!;
    expect(f.rows.map((r) => r.slice(0, 3).map(text))).toEqual([
      ['sqlite', '3.00', '1.00'],
      ['postgres', '4.00', '2.00'],
    ]);
  });

  it('gives transfers per engine with their verification and the ratio to the first', () => {
    const f = transfers([transferFile()])!;
    expect(f.rows.map((r) => r.map(text))).toEqual([
      ['sqlite', '1', '300', '0', 'yes', '1 (reference)'],
      ['postgres', '1', '600', '5', 'NO', '2.00x [2.00–2.00]'],
    ]);
  });

  it('makes a self-contained page and Markdown with every finding and its commands', () => {
    const files = [reads(), transferFile()];
    expect(studyFindings(files).map((f) => f.id)).toEqual([
      'index-effect',
      'concurrency',
      'time',
      'sessions',
      'transfers',
    ]);
    const html = findingsHtml(files);
    expect(html).not.toMatch(/<script src=|<link /);
    for (const id of ['index-effect', 'concurrency', 'time', 'sessions', 'transfers'])
      expect(html).toContain(`data-chart="${id}"`);
    expect(html).toContain('<code>mcp-db-bench run --workloads transfer</code>');
    const md = findingsMarkdown(files);
    expect(md).toContain('| sqlite | point-read | 1 | 103 | 203 | 2.05x [1.90–2.20] |');
    expect(md).toContain('```sh\nmcp-db-bench run --workloads transfer\n```');
    expect(findingsMarkdown([])).toContain('No finished result file yet.');
  });
});
