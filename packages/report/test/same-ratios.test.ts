import { fileURLToPath } from 'node:url';
import { formatVerdict, type ResultFile, type StepResult, stepRate } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { comparisons, comparisonsOf } from '../src/comparisons.js';
import { readResultFile } from '../src/files.js';
import { studyFindings } from '../src/findings/findings.js';
import { findingsHtml } from '../src/findings/page.js';
import { rerunAgreement } from '../src/findings/rerun.js';
import { htmlReport } from '../src/render/html/index.js';
import { reportModel } from '../src/render/html/model.js';
import type { Cell } from '../src/render/html/types.js';
import { overview } from '../src/render/overview.js';
import { reportHeader, reportSections } from '../src/render/report.js';
import { result, step } from '../src/testing.js';
import { judged } from '../src/verdicts.js';

/**
 * The terminal report, the HTML report and the study's findings page, rendered from the same
 * result files, give every ratio the same: each is the run's one pairing, judged once (`judged`:
 * the claims rules over the run's ratios), written by one function.
 * transfers.json (fixtures/results/README.md) is a run of transfers, whose unit is a committed
 * transaction, not a call, with one step that overran: the two cases where rules used to differ.
 */
const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/results/${name}`, import.meta.url));
const TRANSFERS = readResultFile(fixture('transfers.json'));
const TWO_DATABASES = readResultFile(fixture('two-databases.json'));

/** The same file as a run writes it today: its comparisons paired when it ran. */
const asWrittenNow = (file: ResultFile): ResultFile => ({
  ...file,
  comparisons: comparisons(file.steps, {
    targets: file.config.targets.map((t) => t.label),
    indexes: file.config.indexes,
  }),
});

const text = (c: Cell | undefined) => (c === undefined ? undefined : typeof c === 'string' ? c : c.text);
const at = (head: readonly string[], name: string) => {
  const i = head.indexOf(name);
  expect(i, `a column named ${name} in ${head.join(', ')}`).toBeGreaterThanOrEqual(0);
  return i;
};

/** Every index speed-up each renderer shows, by `target|workload|agents`; `verdicts`: as the run's judged verdicts write them. */
function indexSpeedups(file: ResultFile) {
  const verdicts = new Map<string, string>();
  const tones = new Map<string, string>();
  for (const c of comparisonsOf(file).filter((c) => c.kind === 'indexes')) {
    const v = judged(file).of(c)!;
    const key = `${c.other.target}|${c.workload}|${c.agents}`;
    verdicts.set(key, formatVerdict(v));
    tones.set(key, v.verdict === 'claim' ? (v.side === 'above' ? 'good' : 'bad') : 'noise');
  }
  const terminal = new Map<string, string>();
  const section = reportSections(file).find((s) => s.title.startsWith('Index speed-up'))!;
  for (const r of section.rows) terminal.set(`${r[0]}|${r[1]}|${r[2]}`, r[at(section.head, 'speed-up')]!);
  const html = new Map<string, string>();
  const htmlTones = new Map<string, string>();
  for (const b of reportModel([{ label: 'run', result: file }]).sections.find((s) => s.id === 'indexes')!.blocks)
    for (const { cells } of b.table.rows) {
      const key = `${text(cells[0])}|${text(cells[1])}|${text(cells[2])}`;
      const cell = cells[at(b.table.head, 'speed-up')]!;
      html.set(key, text(cell)!);
      htmlTones.set(key, typeof cell === 'string' ? '' : (cell.tone ?? ''));
    }
  const findings = new Map<string, string>();
  const effect = studyFindings([file]).find((f) => f.id === 'index-effect')!;
  for (const r of effect.rows)
    findings.set(`${text(r[0])}|${text(r[1])}|${text(r[2])}`, text(r[at(effect.head, 'speed-up')])!);
  return { terminal, html, findings, verdicts, tones, htmlTones };
}

/** Each target against the first, under the last index set, as each renderer shows it, by `target|workload|agents`. */
function targetRatios(file: ResultFile) {
  const [first, ...others] = file.config.targets.map((t) => t.label);
  const terminal = new Map<string, string>();
  const section = reportSections(file).find((s) => / compared \(/.test(s.title))!;
  for (const r of section.rows)
    for (const t of others)
      terminal.set(`${t}|${r[0]}|${r[1]}`, r[at(section.head, t)]!.split(', ').slice(2).join(', '));
  const html = new Map<string, string>();
  for (const b of reportModel([{ label: 'run', result: file }]).sections.find((s) => s.id === 'servers')!.blocks)
    for (const { cells } of b.table.rows)
      for (const t of others)
        html.set(`${t}|${text(cells[0])}|${text(cells[1])}`, text(cells[at(b.table.head, `${t} against ${first}`)])!);
  const findings = new Map<string, string>();
  const engines = studyFindings([file]).find((f) => f.id === 'engines')!;
  const engine = (label: string) => file.config.targets.find((t) => t.label === label)!.engine;
  for (const r of engines.rows)
    for (const t of others)
      findings.set(`${t}|${text(r[0])}|${text(r[1])}`, text(r[at(engines.head, `${engine(t)} / ${engine(first!)}`)])!);
  return { terminal, html, findings };
}

type Shown = { terminal: Map<string, string>; html: Map<string, string>; findings: Map<string, string> };

const same = (
  shown: Shown & { verdicts?: Map<string, string>; tones?: Map<string, string>; htmlTones?: Map<string, string> },
) => {
  expect(shown.terminal.size).toBeGreaterThan(0);
  expect(Object.fromEntries(shown.html)).toEqual(Object.fromEntries(shown.terminal));
  expect(Object.fromEntries(shown.findings)).toEqual(Object.fromEntries(shown.terminal));
  // each is the run's verdict as the claims rules give it, and the page colours it by that verdict
  if (shown.verdicts) expect(Object.fromEntries(shown.terminal)).toEqual(Object.fromEntries(shown.verdicts));
  if (shown.tones) expect(Object.fromEntries(shown.htmlTones!)).toEqual(Object.fromEntries(shown.tones));
};

describe('one pairing, every renderer', () => {
  for (const [name, file] of [
    ['transfers.json as saved', TRANSFERS],
    ['transfers.json as a run writes it now', asWrittenNow(TRANSFERS)],
    ['two-databases.json', TWO_DATABASES],
  ] as const) {
    // the whole HTML model of a saved run takes seconds on a busy machine
    it(`${name}: the terminal, HTML and findings give every index speed-up the same`, { timeout: 60_000 }, () =>
      same(indexSpeedups(file)),
    );
    it(`${name}: the terminal, HTML and findings give every engine ratio the same`, { timeout: 60_000 }, () =>
      same(targetRatios(file)),
    );
  }

  it('pairs transfers by committed transactions per second, and leaves out the step that overran', () => {
    const ratios = comparisonsOf(TRANSFERS).filter((c) => c.workload === 'transfer');
    expect(ratios.length).toBeGreaterThan(0);
    expect(ratios.every((c) => c.unit === 'commits')).toBe(true);
    // mariadb's optimized transfer step at 4 agents, iteration 3, ran 700 ms past its 1 s end
    const overran = ratios.find(
      (c) => c.kind === 'indexes' && c.other.target === 'mariadb 2025 session' && c.agents === 4,
    )!;
    expect(overran.excluded).toEqual({ empty: 0, overran: 1, unpaired: 0, few: 0, disturbed: 0 });
    expect(overran.withheld).toEqual([{ iteration: 3, reason: 'a call outlasted its step' }]);
    expect(overran.iterations).toEqual([1, 2, 4, 5]);
    // each ratio is the two steps' committed/s, not their calls/s
    const steps = (indexes: string, iteration: number) =>
      TRANSFERS.steps.find(
        (s) =>
          s.target === 'mariadb 2025 session' &&
          s.workload === 'transfer' &&
          s.agents === 4 &&
          s.indexes === indexes &&
          s.iteration === iteration,
      )!;
    expect(overran.rate![0]).toBeCloseTo(stepRate(steps('optimized', 1)) / stepRate(steps('baseline', 1)), 12);
    expect(steps('optimized', 1).commits!.committed).toBeLessThan(steps('optimized', 1).calls);
  });

  it('shows the same ratios on the HTML page and in the short summary', { timeout: 60_000 }, () => {
    const page = htmlReport([{ label: 'run', result: TRANSFERS }]);
    const { terminal } = indexSpeedups(TRANSFERS);
    for (const ratio of terminal.values()) expect(page).toContain(ratio);
    // the summary's speed-ups are the most agents' of the same comparisons
    const summary = overview(TRANSFERS, 400);
    for (const [key, ratio] of terminal)
      if (key.endsWith('|4')) expect(summary).toContain(`${key.split('|')[1]} ${ratio}`);
  });
});

/**
 * One index comparison on SQLite, 5 iterations: baseline 100 calls a step, optimized `ratios[i]`
 * times as many; `each` changes an iteration's two steps (an overrun, the machine's load).
 */
function indexRun(ratios: readonly number[], each: (s: StepResult) => StepResult = (s) => s): ResultFile {
  const steps = ratios.flatMap((r, i) => [
    each(step({ workload: 'filtered', agents: 10, calls: 100, indexes: 'baseline', iteration: i + 1 })),
    each(
      step({ workload: 'filtered', agents: 10, calls: Math.round(100 * r), indexes: 'optimized', iteration: i + 1 }),
    ),
  ]);
  return result(steps, {
    config: { ...result([]).config, workloads: ['filtered'], agents: [10], iterations: ratios.length },
  });
}

/** The speed-up each renderer shows for the one comparison, after checking they agree. */
function shownSpeedup(file: ResultFile): string {
  const shown = indexSpeedups(file);
  same(shown);
  return shown.terminal.get('sqlite|filtered|10')!;
}

describe('the claims rules, the same in every renderer', () => {
  it('reads an interval wholly above 1 but inside the ±10% band as no difference', () => {
    const file = indexRun([1.02, 1.04, 1.05, 1.03, 1.06]);
    expect(shownSpeedup(file)).toBe('no difference (1.02–1.06)');
    expect(overview(file, 100)).toContain('filtered no difference (1.02–1.06)');
    expect(htmlReport([{ label: 'run', result: file }])).toContain('no difference (1.02–1.06)');
  });

  it('claims 4 of 5 pairs at 33x to 82x, saying on how many iterations it rests', () => {
    // the third iteration's optimized step overran: its pair is left out, with why
    const file = indexRun([34.8, 52.1, 60, 79.6, 61.0], (s) =>
      s.iteration === 3 && s.indexes === 'optimized' ? { ...s, overrun: { calls: 1, lastEndedAfterMs: 700 } } : s,
    );
    expect(shownSpeedup(file)).toBe('56.5x [34.8–79.6] (4 of 5 iterations)');
    expect(judged(file).of(comparisonsOf(file)[0])!.verdict).toBe('claim');
  });

  it('withholds a ratio whose pairs the machine disturbed, and says why and that it was busy', () => {
    // iterations 1 to 3 ran while other processes took 60 to 80% of the machine, the others beside 2%
    const load = [0.6, 0.7, 0.8, 0.02, 0.02];
    const file = indexRun([2, 2.1, 1.9, 2.05, 2.0], (s) => ({
      ...s,
      interference: { otherCpuShare: load[s.iteration - 1]!, stealShare: 0, ownCpuShare: 0.3, capacityMs: 2000 },
    }));
    expect(shownSpeedup(file)).toBe('withheld (2 of 5 iterations: 3 × the machine was busy)');
    const busy = 'the machine was busy: other processes took 60%–80% of its CPU during 6 of 10 steps';
    const why =
      '2 of 5 iterations usable (3 × the machine was busy), fewer than the 3 an interval needs; ' +
      '60%–80% of the CPU went to other processes during its busy steps';
    // the terminal: the summary and the full report's header and its table of withheld ratios
    const summary = overview(file, 200);
    expect(summary).toContain(busy);
    expect(summary).toContain(`sqlite filtered × 10 optimized/baseline: ${why}`);
    expect(reportHeader(file)).toContain(busy);
    const withheld = reportSections(file).find((s) => s.title.startsWith('Ratios withheld'))!;
    expect(withheld.rows).toEqual([
      ['sqlite filtered × 10 optimized/baseline', why],
      ['sqlite filtered × 10 optimized/baseline (p50)', why],
    ]);
    // the HTML report and the findings page say it too
    for (const page of [htmlReport([{ label: 'run', result: file }]), findingsHtml([file])]) {
      // (the findings page writes each as a sentence: capitalised)
      expect(page.toLowerCase()).toContain(busy.toLowerCase());
      expect(page).toContain(why);
    }
    // a ratio built on disturbed steps is never a finding: 2 usable pairs
    expect(judged(file).of(comparisonsOf(file)[0])!.verdict).toBe('withheld');
  });
});

describe('a rerun judged by verdicts, on saved result files', () => {
  const words = (f: NonNullable<ReturnType<typeof rerunAgreement>>) =>
    new Map(f.rows.map((r) => [`${text(r[0])} ${text(r[1])}`, text(r[4])!]));

  it('finds no disagreement between a run and itself, and the same verdicts swapped', { timeout: 60_000 }, () => {
    const self = words(rerunAgreement([TWO_DATABASES], [TWO_DATABASES])!);
    expect(self.size).toBeGreaterThan(10);
    for (const v of self.values())
      expect(['reproduced', 'no difference both times', 'unsettled', 'withheld']).toContain(v);
    // a rerun whose SQLite optimized steps made three times their baseline step's calls, every
    // iteration: its index speed-ups, undecided on this busy machine's file, are claimed
    const baseline = (s: StepResult) =>
      TWO_DATABASES.steps.find(
        (b) =>
          b.indexes === 'baseline' &&
          b.target === s.target &&
          b.workload === s.workload &&
          b.agents === s.agents &&
          b.iteration === s.iteration,
      );
    const slower: ResultFile = {
      ...TWO_DATABASES,
      comparisons: undefined,
      steps: TWO_DATABASES.steps.map((s) => {
        const b = s.target.startsWith('sqlite') && s.indexes === 'optimized' ? baseline(s) : undefined;
        return b ? { ...s, calls: b.calls * 3, durationMs: b.durationMs } : s;
      }),
    };
    const f = rerunAgreement([TWO_DATABASES], [slower])!;
    const forth = words(f);
    const back = words(rerunAgreement([slower], [TWO_DATABASES])!);
    expect([...forth.values()].some((v) => /flipped|newly claimed|claim lost/.test(v))).toBe(true);
    const swap: Record<string, string> = { 'newly claimed': 'claim lost', 'claim lost': 'newly claimed' };
    for (const [key, v] of forth) expect(back.get(key)).toBe(swap[v] ?? v);
    // the disagreements first, coloured bad; the agreements good
    const tones = f.rows.map((r) => (typeof r[4] === 'string' ? '' : r[4]!.tone));
    expect(tones.indexOf('bad')).toBe(0);
    expect(f.note).toMatch(/By chance alone/);
  });
});
