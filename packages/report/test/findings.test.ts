import type { Comparison, ResultFile, StepResult } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { concurrencyScaling } from '../src/findings/concurrency.js';
import { enginesCompared } from '../src/findings/engines.js';
import { studyFindings } from '../src/findings/findings.js';
import { indexEffect } from '../src/findings/index-effect.js';
import { findingsHtml, findingsMarkdown } from '../src/findings/page.js';
import { rerunAgreement, studyClaims } from '../src/findings/rerun.js';
import { sessionStart } from '../src/findings/sessions.js';
import { shares, timeShares } from '../src/findings/time.js';
import { transfers } from '../src/findings/transfers.js';
import { result, stats, step } from '../src/testing.js';
import { type Judged, judge } from '../src/verdicts.js';

/** A finding of these files, their ratios judged together as the findings page judges them. */
const of = <T>(find: (files: ResultFile[], j: Judged) => T, files: ResultFile[]): T => find(files, judge(files));

/** The findings are pure: hand-made study result files in, known ratios, shares and commands out. */

const TARGETS = [
  { label: 'sqlite', engine: 'sqlite', url: 'sqlite:x' },
  { label: 'postgres', engine: 'postgres', url: 'postgres://x' },
];

const text = (c: unknown) => (typeof c === 'string' ? c : (c as { text: string }).text);

/** A comparison as files written before `rate` kept it: the findings pair such a file's steps again. */
function comparison(
  partial: Partial<Comparison> & Pick<Comparison, 'workload' | 'agents'> & { throughput: number[] },
): Comparison {
  return {
    kind: 'indexes',
    base: { target: 'sqlite', indexes: 'baseline' },
    other: { target: 'sqlite', indexes: 'optimized' },
    iterations: partial.throughput.map((_, i) => i + 1),
    p50: partial.throughput,
    ...partial,
  };
}

/** A read segment: point-read at 1 and 10 agents on two databases, 5 iterations, both index sets. */
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
              // sqlite: optimized twice as fast; postgres: optimized 10 faster or slower by turns (no
              // difference); 10 agents three times 1 agent, give or take the iteration
              calls:
                (indexes === 'optimized' && target === 'sqlite' ? 200 : 100) * (agents === 10 ? 3 : 1) +
                iteration +
                (indexes === 'optimized' && target === 'postgres' ? (iteration % 2 ? 10 : -10) : 0),
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
        errors: target === 'postgres' ? { conflict: 3, deadlock: 1 } : {},
        // postgres's step counts its commits: 500 of its 600 calls committed (the headline)
        ...(target === 'postgres'
          ? { commits: { op: 'transfer:commit', committed: 500, conflicts: 3, failed: 1 } }
          : {}),
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
  it('gives the index effect judged by the claims rules: a claim, or undecided where the interval crosses the band', () => {
    const f = of(indexEffect, [reads()])!;
    // sqlite (200 + i) / (100 + i), i = 1..5: 1.99 .. 1.95; postgres 111/101, 92/102, 113/103, 94/104, 115/105
    // at 10 agents: sqlite (600 + i) / (300 + i), postgres (300 + i ± 10) / (300 + i): every pair the steps
    // hold, though this file (written before its comparisons kept `rate`) listed the 1-agent pairs only
    expect(f.rows.map((r) => [text(r[0]), text(r[2]), text(r[3]), text(r[4]), text(r[5])])).toEqual([
      ['sqlite', '1', '103', '203', '1.97x [1.95–1.99]'],
      // 0.90 to 1.099: it crosses the ±10% band's lower edge (1.099 lies inside the upper, 1.10 would not)
      ['postgres', '1', '103', '111', '~ (0.90–1.099)'],
      ['sqlite', '10', '303', '603', '1.99x [1.98–2.00]'],
      // 0.97 to 1.03, all 5 iterations: inside the band, no difference worth claiming
      ['postgres', '10', '303', '311', 'no difference (0.97–1.03)'],
    ]);
    expect(f.chart!.axes[0]!.log).toBe(10);
    expect(f.chart!.series.map((s) => s.label)).toEqual(['sqlite × 1', 'sqlite × 10', 'postgres × 1', 'postgres × 10']);
    expect(new Set(f.chart!.series.map((s) => s.color)).size).toBe(4);
    expect(f.chart!.data[0]).toEqual([0]);
    expect(f.chart!.data[1]![0]).toBeCloseTo(203 / 103, 6);
    expect(f.chart!.data[3]![0]).toBeCloseTo(115 / 105, 6);
    expect(f.chart!.series[0]!.intervals![0]![0]).toBeCloseTo(205 / 105, 6);
    expect(f.commands).toEqual(['mcp-db-bench run --workloads point-read --agents 1,10']);
  });

  it('compares every database with every other, paired per iteration', () => {
    const three = reads();
    three.config.targets = [...TARGETS, { label: 'mysql', engine: 'mysql', url: 'mysql://x' }];
    // mysql: half of postgres's calls in odd iterations, the same in even ones
    three.steps.push(
      ...three.steps
        .filter((s) => s.target === 'postgres')
        .map((s) => ({ ...s, target: 'mysql', calls: s.iteration % 2 ? s.calls / 2 : s.calls })),
    );
    const f = of(enginesCompared, [three])!;
    expect(f.head).toEqual(['workload', 'agents', 'postgres / sqlite', 'mysql / sqlite', 'mysql / postgres']);
    const one = f.rows.find((r) => r[0] === 'point-read' && r[1] === '1')!.map(text);
    // optimized: postgres (100 + i ± 10) over sqlite (200 + i): about 0.5 in every iteration
    expect(one[2]).toMatch(/^0\.5\dx \[0\.4\d–0\.5\d\]$/);
    // mysql over postgres: 0.5, 1, 0.5, 1, 0.5: the interval crosses the band's lower edge, undecided
    expect(one[4]).toBe('~ (0.50–1.00)');
    expect(f.chart!.axes[0]!.log).toBe(10);
    expect(new Set(f.chart!.series.map((s) => s.color)).size).toBe(f.chart!.series.length);
    // the pair between the second and the third: what a file pairing each with the first cannot say
    expect(of(studyClaims, [three]).map((c) => c.what)).toContain('mysql / postgres point-read × 10');
  });

  it('withholds a ratio whose steps’ calls outlast them, and says why', () => {
    const slow = reads();
    // sqlite's optimized steps at 1 agent: the last call ended 1.5 s after a 1 s step
    for (const s of slow.steps)
      if (s.target === 'sqlite' && s.indexes === 'optimized' && s.agents === 1)
        s.overrun = { calls: 1, lastEndedAfterMs: 1500 };
    const row = of(indexEffect, [slow])!
      .rows.find((r) => r[0] === 'sqlite')!
      .map(text);
    expect(row[4]).toBe('203 (overran)');
    expect(row[5]).toBe('withheld (0 of 5 iterations: 5 × a call outlasted its step)');
    const claim = of(studyClaims, [slow]).find((c) => c.what === 'sqlite point-read × 1')!;
    expect(claim.verdict.verdict).toBe('withheld');
    expect(claim.verdict.why).toBe(
      '0 of 5 iterations usable (5 × a call outlasted its step), fewer than the 3 an interval needs',
    );
    // a call that ended a little after its step still gives a ratio
    const late = reads();
    for (const s of late.steps)
      if (s.target === 'sqlite' && s.indexes === 'optimized' && s.agents === 1)
        s.overrun = { calls: 1, lastEndedAfterMs: 300 };
    expect(text(of(indexEffect, [late])!.rows[0]![5])).toBe('1.97x [1.95–1.99]');
  });

  it('checks a rerun against the earlier run by verdicts, symmetric between the runs', () => {
    const earlier = reads();
    const again = reads();
    // the rerun: sqlite's optimized steps at 10 agents now as slow as baseline ones
    for (const s of again.steps)
      if (s.target === 'sqlite' && s.indexes === 'optimized' && s.agents === 10) s.calls = 300 + s.iteration;
    const f = rerunAgreement([earlier], [again])!;
    const rows = f.rows.map((r) => r.map(text));
    const verdicts = rows.map((r) => r[4]);
    // the disagreements come first
    expect(verdicts.indexOf('reproduced')).toBeGreaterThan(0);
    expect(verdicts.slice(verdicts.indexOf('reproduced')).every((v) => v !== 'claim lost')).toBe(true);
    // the index speed-up at 10 agents: 1.99x claimed before, now 1.00 on every iteration: no difference
    const lost = rows.find((r) => r[0] === 'index speed-up' && r[1] === 'sqlite point-read × 10')!;
    expect(lost.slice(2)).toEqual(['1.99x [1.98–2.00]', 'no difference (1.00–1.00)', 'claim lost']);
    expect((f.rows.find((r) => text(r[1]) === lost[1] && text(r[0]) === lost[0])![4] as { tone: string }).tone).toBe(
      'bad',
    );
    // 10 agents over 1: (600 + i) / (200 + i) before, (300 + i) / (200 + i) now: both claim more, reproduced
    const sqlite10 = rows.find((r) => r[0] === 'concurrency scaling' && r[1] === 'sqlite point-read × 10')!;
    expect(sqlite10.slice(2)).toEqual(['2.97x [2.95–2.99]', '1.49x [1.49–1.50]', 'reproduced']);
    // neither run claims postgres's ~ (0.90–1.099), nor do both say no difference
    expect(rows.find((r) => r[1] === 'postgres point-read × 1' && r[0] === 'index speed-up')![4]).toBe('unsettled');
    expect(f.note).toMatch(/^\d+ ratios of both runs, judged by their verdicts/);
    // the index speed-up, and postgres against sqlite at 10 agents (sqlite no faster now)
    expect(f.note).toMatch(/claim lost 2/);
    expect(f.note).toMatch(/about \d+\.\d of the \d+ ratios claimed in either run/);
    expect(f.chart).toBeUndefined();
    // swapped: the claim lost is newly claimed, the rest the same
    const back = rerunAgreement([again], [earlier])!;
    const swapped = new Map(back.rows.map((r) => [`${text(r[0])} ${text(r[1])}`, text(r[4])]));
    for (const r of rows)
      expect(swapped.get(`${r[0]} ${r[1]}`)).toBe(
        r[4] === 'claim lost' ? 'newly claimed' : r[4] === 'newly claimed' ? 'claim lost' : r[4],
      );
    // a claimed speed-up that turns into a claimed slow-down: flipped
    const flipped = reads();
    for (const s of flipped.steps)
      if (s.target === 'sqlite' && s.indexes === 'optimized' && s.agents === 1) s.calls = 50 + s.iteration;
    const fl = rerunAgreement([earlier], [flipped])!;
    expect(
      text(fl.rows.find((r) => text(r[1]) === 'sqlite point-read × 1' && text(r[0]) === 'index speed-up')![4]),
    ).toBe('flipped');
    // the same run against itself: never a disagreement
    const self = rerunAgreement([earlier], [earlier])!;
    expect(self.rows.map((r) => text(r[4])).filter((v) => /flipped|newly|lost/.test(v))).toEqual([]);
  });

  it('scales concurrency against the fewest agents, paired per iteration', () => {
    const f = of(concurrencyScaling, [reads()])!;
    const sqlite = f.rows.filter((r) => r[0] === 'sqlite').map((r) => r.map(text));
    expect(sqlite[0]!.slice(2)).toEqual(['1', '203', '1 (reference)']);
    // (600 + i) / (200 + i) per iteration, i = 1..5: 2.99, 2.98, 2.97, 2.96, 2.95
    expect(sqlite[1]!.slice(2, 4)).toEqual(['10', '603']);
    expect(sqlite[1]![4]).toBe('2.97x [2.95–2.99]');
    expect(f.chart!.x.log).toBe(2);
    expect(f.chart!.data[0]).toEqual([1, 10]);
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
    // with the rounds the decomposition now keeps: the median of each share over them, inside its range
    const rounded = reads();
    rounded.decomposition[0]!.rounds = [
      { raw: 100, echo: 200, full: 400 },
      { raw: 80, echo: 200, full: 400 },
      { raw: 120, echo: 180, full: 400 },
      { raw: 100, echo: 220, full: 400 },
      { raw: 100, echo: 200, full: 400 },
    ];
    expect(timeShares([rounded])!.rows[0]!.slice(5).map(text)).toEqual([
      '25% [20%–30%]',
      '50% [45%–55%]',
      '25% [20%–30%]',
    ]);
    // rounds whose shares all lie below the whole run's (a slow round makes the run's p50s): the
    // headline is the rounds' median, never outside their range
    const skewed = reads();
    skewed.decomposition[0]!.rounds = [
      { raw: 40, echo: 200, full: 400 },
      { raw: 32, echo: 200, full: 400 },
      { raw: 80, echo: 200, full: 400 },
      { raw: 100, echo: 200, full: 400 },
      { raw: 60, echo: 200, full: 400 },
    ];
    const database = timeShares([skewed])!.rows[0]![5] as { text: string; value: number };
    expect(database.text).toBe('15% [8%–25%]');
    expect(database.value).toBeCloseTo(0.15, 12);
  });

  it('gives session start per database, on a server just started and later', () => {
    const file = reads();
    // sqlite measured again in the last pass: its first, cold measurement 1.5-2 times slower
    file.sessionInit[0]!.later = { iteration: 5, cold: stats([1800, 1800]), warm: stats([600, 600]) };
    const f = sessionStart([file])!;
    expect(f.head.slice(1, 5)).toEqual([
      'cold p50 ms, first',
      'cold p50 ms, later',
      'warm p50 ms, first',
      'warm p50 ms, later',
    ]);
    expect(f.rows.map((r) => r.slice(0, 5).map(text))).toEqual([
      ['sqlite', '3.00', '1.80', '1.00', '0.60'],
      ['postgres', '4.00', '–', '2.00', '–'],
    ]);
    // a read segment started sessions but measured none as a workload: no rate columns
    expect(f.head.at(-1)).toBe('warm p50 ms, later');
  });

  it('gives whole sessions and handshakes per second at each agent count the segment measured', () => {
    const steps: StepResult[] = [];
    for (const target of ['sqlite', 'postgres'])
      for (const iteration of [1, 2, 3])
        for (const agents of [1, 10]) {
          // postgres starts sessions half as fast; 10 agents four times 1 agent
          const sessions = (target === 'sqlite' ? 1000 : 500) * (agents === 10 ? 4 : 1) + iteration;
          for (const indexes of ['baseline', 'optimized'])
            steps.push(step({ target, indexes, iteration, workload: 'session-init', agents, calls: sessions }));
          steps.push(
            step({ target, indexes: 'baseline', iteration, workload: 'handshake', agents, calls: 3 * sessions }),
          );
        }
    const file = reads();
    const fileOf = (workloads: string[]) =>
      result(
        steps.filter((s) => workloads.includes(s.workload)),
        { config: { ...file.config, workloads, agents: [1, 10], iterations: 3 }, sessionInit: file.sessionInit },
      );
    // a study's session segment with the handshake (before it was a segment of its own), and the two apart
    for (const files of [[fileOf(['session-init', 'handshake'])], [fileOf(['session-init']), fileOf(['handshake'])]]) {
      const f = sessionStart(files)!;
      expect(f.head.slice(5)).toEqual(['sessions/s, 1 / 10 agent(s)', 'handshakes/s, 1 / 10 agent(s)']);
      // the medians of the iterations, the optimized set's for sessions, the baseline's for the handshake
      expect(f.rows.map((r) => r.slice(5).map(text))).toEqual([
        ['1,002 / 4,002', '3,006 / 12,006'],
        ['502 / 2,002', '1,506 / 6,006'],
      ]);
    }
    // the sessions without the handshake's segment: no column for it
    expect(sessionStart([fileOf(['session-init'])])!.head.slice(5)).toEqual(['sessions/s, 1 / 10 agent(s)']);
  });

  it('gives committed transfers per engine with conflicts, verification and restore', () => {
    const f = transfers([transferFile()])!;
    expect(f.head).toEqual(['database', 'agents', 'committed/s', 'conflicts', 'failed', 'verified', 'restored']);
    expect(f.rows.map((r) => r.map(text))).toEqual([
      ['sqlite', '1', '300', '0', '0', 'yes', 'yes'],
      ['postgres', '1', '500', '15', '5', 'NO', 'yes'],
    ]);
    // engine against engine in the workload's unit: 500 committed/s over 300 calls/s
    const e = of(enginesCompared, [transferFile()])!;
    expect(text(e.rows[0]![2])).toBe('1.67x [1.67–1.67]');
  });

  it('makes a self-contained page and Markdown with every finding and its commands', () => {
    const files = [reads(), transferFile()];
    expect(studyFindings(files).map((f) => f.id)).toEqual([
      'index-effect',
      'concurrency',
      'engines',
      'time',
      'sessions',
      'transfers',
    ]);
    const html = findingsHtml(files);
    expect(html).not.toMatch(/<script src=|<link /);
    for (const id of ['index-effect', 'concurrency', 'engines', 'time', 'sessions', 'transfers'])
      expect(html).toContain(`data-chart="${id}"`);
    expect(html).toContain('<code>mcp-db-bench run --workloads transfer</code>');
    const md = findingsMarkdown(files);
    expect(md).toContain('| sqlite | point-read | 1 | 103 | 203 | 1.97x [1.95–1.99] |');
    // with an earlier run: the rerun's table, and no chart for it
    const rerun = findingsHtml(files, files);
    expect(rerun).toContain('<section id="rerun">');
    expect(rerun).not.toContain('data-chart="rerun"');
    expect(md).toContain('```sh\nmcp-db-bench run --workloads transfer\n```');
    expect(findingsMarkdown([])).toContain('No finished result file yet.');
  });
});
