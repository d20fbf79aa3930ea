import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { encode, newHistogram } from '../src/histogram.js';
import { htmlReport } from '../src/render/html/index.js';
import { overview } from '../src/render/overview.js';
import { reportHeader, reportSections } from '../src/render/report.js';
import { toMarkdown, toTerminal } from '../src/render/table.js';
import { result, step } from '../src/testing.js';

/**
 * Every count and rate of 1,000 or more a report prints is grouped as en-US writes it (12,345):
 * a result of large numbers, rendered for a terminal, as Markdown, as the summary and as HTML, has
 * no run of 4 or more digits that is not a decimal's (milliseconds), a date's, an address's or a seed's.
 */

/** `n` calls of `us` µs each, as a step's operation stats. */
function many(n: number, us = 1500) {
  const h = newHistogram();
  h.recordValueWithCount(us, n);
  return { count: n, histogram: encode(h) };
}

/** A step of `calls` calls in 1 s at 1,000 agents and more, with large counts in every field. */
function big(partial: Partial<StepResult> & Pick<StepResult, 'workload' | 'agents' | 'calls'>): StepResult {
  const all = many(partial.calls);
  return step({
    operations: { get: all },
    all,
    errors: { 'tool:timeout': 12_345, http_503: 23_456 },
    reinitialized: 34_567,
    sessions: true,
    client: { cpuPerCallUs: 2345, cpuUtilization: 0.5, eventLoopDelayP99Ms: 1, eventLoopDelayMaxMs: 2 },
    server: { cpuPerCallUs: 3456 },
    intervals: [{ atMs: 0, calls: partial.calls, errors: 4567, histogram: all.histogram }],
    ...partial,
  });
}

const steps = (indexes: string) => [
  big({ workload: 'point-read', agents: 1000, calls: 1_234_567, indexes }),
  big({ workload: 'point-read', agents: 2000, calls: 2_345_678, indexes }),
  big({
    workload: 'mixed',
    agents: 1000,
    calls: 3_500_000,
    indexes,
    operations: { get: many(3_000_000), aggregate: many(500_000, 20_000) },
    overrun: { calls: 4567, lastEndedAfterMs: 3200 },
  }),
  big({
    workload: 'transfer',
    agents: 1000,
    calls: 45_678,
    indexes,
    commits: { op: 'transfer:commit', committed: 56_789, conflicts: 6789, failed: 7890 },
    verification: {
      marker: 'm',
      ok: true,
      acknowledged: { insert: 12_345, update: 23_456, delete: 3456, transfer: 56_789 },
      failed: { conflict: 6789 },
      unknown: 1234,
      rowsRead: 98_765,
      lost: 0,
      phantom: 0,
      wrongValues: 0,
      payments: { expected: 56_789, found: 56_789 },
      accounts: { checked: 10_000, mismatched: 0 },
      money: { before: '1000000.00', after: '1000000.00' },
      problems: [],
    },
  }),
];

const file: ResultFile = result([...steps('baseline'), ...steps('optimized')], {
  config: { ...result([]).config, agents: [1000, 2000], iterations: 1, rate: 5000 },
  environment: { ...result([]).environment, memoryMb: 16_384 },
  agreement: [
    { workload: 'point-read', reference: 'sqlite', target: 'other', calls: 12_345, mismatches: 1234, differences: [] },
  ],
  sessionInit: [
    {
      target: 'sqlite',
      indexes: 'optimized',
      cold: many(12_345),
      warm: many(23_456),
      full: many(3456),
      taskTables: ['orders'],
      allTables: 1234,
    },
  ],
});

/** A replay of a trace, its methods counted in the thousands. */
const replayed: ResultFile = result(
  [
    big({
      workload: 'replay',
      agents: 1000,
      calls: 45_678,
      operations: { initialize: many(12_345), 'tools/call get': many(33_333) },
    }),
  ],
  {
    config: {
      ...result([]).config,
      workloads: ['replay'],
      replay: { trace: 'db.jsonl', recordedTarget: 'ours', values: 'keep', sessions: 1234, requests: 45_678, think: 0 },
    },
  },
);

/** Digit runs of 4 or more that are neither grouped nor part of a decimal, a date, an address or a seed. */
function ungrouped(text: string): string[] {
  const plain = text
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z?/g, ' ') // startedAt
    .replace(/\b[a-z]+:\S+/g, ' ') // URLs (sqlite:x, http://…)
    .replace(/seed \d+/g, ' ');
  return [...plain.matchAll(/(?<![\d.,])\d{4,}(?![\d,]|\.\d)/g)].map((m) => {
    const at = m.index;
    return plain.slice(Math.max(0, at - 40), at + m[0].length + 10).replace(/\s+/g, ' ');
  });
}

/** The page's text as a reader sees it: no script, no style, no tags. */
const visible = (html: string) =>
  html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));

describe('thousands grouped in every report', () => {
  for (const [name, r] of [
    ['a run', file],
    ['a replay', replayed],
  ] as const) {
    it(`${name}: the terminal, Markdown, summary and HTML reports group every count and rate`, () => {
      const sections = reportSections(r);
      // the fixture reaches the tables this audits
      if (r === file)
        for (const title of [
          'Latency',
          'Operations',
          'Overrun',
          'Sessions',
          'Transactions',
          'Write verification',
          'Server CPU',
        ])
          expect(
            sections.some((s) => s.title.startsWith(title)),
            title,
          ).toBe(true);
      const texts = {
        terminal: `${reportHeader(r)}\n${toTerminal(sections)}`,
        markdown: toMarkdown(sections),
        summary: overview(r, 200),
        html: visible(htmlReport([{ label: 'run', result: r }])),
      };
      for (const [format, text] of Object.entries(texts)) {
        expect(text).toMatch(/\d,\d{3}/);
        expect(ungrouped(text), format).toEqual([]);
      }
    });
  }

  it('finds what it looks for: an ungrouped count, not a decimal, a date or an address', () => {
    expect(ungrouped('calls 12345 at 1234.5 ms on 2026-01-01T00:00:00Z via http://127.0.0.1:8080/mcp')).toEqual([
      'calls 12345 at 1234.5',
    ]);
    expect(ungrouped('12,345 calls, 1,234.5 ms, seed 12345')).toEqual([]);
  });
});
