import { goodput, type ResultFile } from '@mcp-db-bench/contract';
import { int, ms, rate } from '../format.js';
import { decode, merge, summary } from '../histogram.js';
import { type Group, groupSteps, medianGoodput, roundLabel } from './groups.js';
import { type ChartSpec, dropEmptySeries, slug } from './html/charts.js';
import { MEANING } from './html/colors.js';
import { esc, htmlDocument, table as htmlTable } from './html/page.js';
import { loadStages } from './html/sections/summary.js';
import type { Cell, Table } from './html/types.js';
import type { Section } from './table.js';

/**
 * Two runs compared, step group by step group (target round, workload, agents): the change in
 * calls/s, p50 and p99, and whether it is beyond noise. A change is marked when both hold:
 *
 * 1. its size exceeds the noise floor: |new − base| / base > noise %;
 * 2. the runs' own spread does not explain it: the ranges [min, max] of the per-iteration
 *    values of the two sides do not overlap. With one iteration a side's range is its single
 *    value, so with one iteration on both sides rule 1 alone decides.
 *
 * A marked change is a regression when it is slower: fewer calls/s, or a higher p50 or p99.
 */

export const DEFAULT_NOISE_PCT = 5;

export type Metric = 'calls/s' | 'p50 ms' | 'p99 ms';
const METRICS: readonly Metric[] = ['calls/s', 'p50 ms', 'p99 ms'];

export interface Change {
  metric: Metric;
  base: number;
  next: number;
  /** (new − base) / base, in %; null when base is 0 and new is not: no percentage exists (see `note`) */
  changePct: number | null;
  /** how much slower new is, in % (negative: faster): −change for calls/s, +change for latency; null with changePct */
  slowerPct: number | null;
  /** why changePct is null */
  note?: string;
  baseRange: [number, number];
  nextRange: [number, number];
  marked: boolean;
}

export interface CompareRow {
  target: string;
  workload: string;
  agents: number;
  /** empty when only one side measured this step */
  changes: Change[];
  only?: 'base' | 'new';
}

export interface Comparison {
  noisePct: number;
  iterations: { base: number; next: number };
  rows: CompareRow[];
  /** configuration and environment facts that differ between the runs: their numbers may not be comparable */
  differences: string[];
  /** steps both runs measured: the only ones a gate can judge */
  shared: number;
  /** why the verdicts deserve less trust than they look: a side that cannot measure its noise */
  cautions: string[];
}

/** The per-iteration values of one metric for a step group, and its headline value (median goodput; percentiles of the merged histogram). */
function measure(g: Group, metric: Metric): { value: number; perIteration: number[] } {
  if (metric === 'calls/s') return { value: medianGoodput(g).median, perIteration: g.steps.map(goodput) };
  const at = metric === 'p50 ms' ? 'p50' : 'p99';
  return {
    value: summary(merge(g.steps.map((s) => s.all.histogram)))[at] / 1000,
    perIteration: g.steps.map((s) => summary(decode(s.all.histogram))[at] / 1000),
  };
}

/** Why a change has no percentage: there is nothing to divide by (a base of 0 calls/s, or no call timed). */
export const FROM_ZERO = 'base is 0: a change from 0 has no percentage, and is never marked';

/**
 * One metric's change between two step groups, with the noise rule applied. From a base of 0 to
 * more, no percentage exists (it would be infinite, and JSON has no infinity): it is left out,
 * with the reason, and the noise rule, which is a percentage, cannot mark it.
 */
export function change(
  metric: Metric,
  base: { value: number; perIteration: number[] },
  next: { value: number; perIteration: number[] },
  noisePct: number,
): Change {
  const changePct = base.value > 0 ? ((next.value - base.value) / base.value) * 100 : next.value > 0 ? null : 0;
  const baseRange: [number, number] = [Math.min(...base.perIteration), Math.max(...base.perIteration)];
  const nextRange: [number, number] = [Math.min(...next.perIteration), Math.max(...next.perIteration)];
  const apart = nextRange[1] < baseRange[0] || nextRange[0] > baseRange[1];
  return {
    metric,
    base: base.value,
    next: next.value,
    changePct,
    slowerPct: changePct === null ? null : metric === 'calls/s' ? -changePct : changePct,
    ...(changePct === null ? { note: FROM_ZERO } : {}),
    baseRange,
    nextRange,
    marked: changePct !== null && Math.abs(changePct) > noisePct && apart,
  };
}

/**
 * Several runs of one configuration as one run whose iterations are all of theirs, renumbered in
 * order: the spread rule then sees the drift between runs, not only within one. Runs made in turn
 * with the other side's (base, new, base, new...) give that drift to both sides alike, which is
 * how two builds are compared fairly on a shared machine. Runs of another configuration are refused.
 */
export function poolRuns(runs: readonly { name: string; result: ResultFile }[]): ResultFile {
  const [first] = runs;
  if (!first) throw new RangeError('no result files to pool');
  // a run's own temporary database has a new path each time: targets are the same by label and
  // engine; the iterations are what pooling adds up
  const sameness = (r: ResultFile) =>
    JSON.stringify({ ...r.config, iterations: 0, targets: r.config.targets.map(({ url: _, ...t }) => t) });
  const config = sameness(first.result);
  const other = runs.find((r) => sameness(r.result) !== config);
  if (other)
    throw new Error(
      `${other.name} and ${first.name} are runs of different configurations: pool only repeats of one run command`,
    );
  if (runs.length === 1) return first.result;
  let offset = 0;
  const steps = runs.flatMap(({ result }) => {
    const renumbered = result.steps.map((s) => ({ ...s, iteration: offset + s.iteration }));
    offset += result.config.iterations;
    return renumbered;
  });
  return {
    ...first.result,
    config: { ...first.result.config, iterations: offset },
    finishedAt: runs
      .map((r) => r.result.finishedAt)
      .sort()
      .at(-1)!,
    steps,
    warnings: runs.flatMap((r) => r.result.warnings),
  };
}

export function compareRuns(base: ResultFile, next: ResultFile, options: { noisePct?: number } = {}): Comparison {
  const noisePct = options.noisePct ?? DEFAULT_NOISE_PCT;
  const key = (g: Group) => `${roundLabel(g)}\u0000${g.workload}\u0000${g.agents}`;
  const baseGroups = new Map(groupSteps(base.steps).map((g) => [key(g), g]));
  const nextGroups = new Map(groupSteps(next.steps).map((g) => [key(g), g]));
  const rows: CompareRow[] = [];
  for (const [k, b] of baseGroups) {
    const n = nextGroups.get(k);
    const row = { target: roundLabel(b), workload: b.workload, agents: b.agents };
    if (!n) rows.push({ ...row, changes: [], only: 'base' });
    else rows.push({ ...row, changes: METRICS.map((m) => change(m, measure(b, m), measure(n, m), noisePct)) });
  }
  for (const [k, n] of nextGroups)
    if (!baseGroups.has(k))
      rows.push({ target: roundLabel(n), workload: n.workload, agents: n.agents, changes: [], only: 'new' });
  const iterations = { base: base.config.iterations, next: next.config.iterations };
  const shared = rows.filter((r) => !r.only).length;
  return {
    noisePct,
    iterations,
    rows,
    differences: differences(base, next),
    shared,
    cautions: cautions(iterations, shared),
  };
}

/** What makes a gate on this comparison less than it looks (see `headline`). */
function cautions(iterations: { base: number; next: number }, shared: number): string[] {
  if (shared === 0) return [];
  const single = (['base', 'next'] as const)
    .filter((side) => iterations[side] === 1)
    .map((side) => (side === 'next' ? 'new' : side));
  if (single.length === 0) return [];
  return [
    `${single.join(' and ')} ${single.length === 1 ? 'has' : 'have'} one iteration: a single run cannot measure its own noise, so a change is marked on --noise alone ` +
      '(run --iterations 3 or more, or pool repeats: a.json,b.json,c.json)',
  ];
}

/** Why a comparison has nothing to judge: the runs share no step. Undefined when they share one. */
export function nothingShared(c: Comparison, base: ResultFile, next: ResultFile): string | undefined {
  if (c.shared > 0) return undefined;
  const steps = (r: ResultFile) =>
    [...new Set(groupSteps(r.steps).map((g) => `${roundLabel(g)} ${g.workload}@${g.agents}`))].slice(0, 4).join(', ') ||
    'none';
  return `the runs share no step, so nothing can be compared (base: ${steps(base)}; new: ${steps(next)}); steps are matched by target, index set, workload and agents`;
}

/** Marked changes slower than `thresholdPct`. */
export function regressions(
  comparison: Comparison,
  thresholdPct: number,
): { row: CompareRow; change: Change & { slowerPct: number } }[] {
  const slower = (c: Change): c is Change & { slowerPct: number } =>
    c.marked && c.slowerPct !== null && c.slowerPct > thresholdPct;
  return comparison.rows.flatMap((row) => row.changes.filter(slower).map((c) => ({ row, change: c })));
}

const BUSY = 'the load generator was busy';
const DELAYED = /every tool call was delayed (\d+(?:\.\d+)?) ms on purpose/;

/**
 * What a run's warnings say about its numbers, as facts two runs can differ in: the busy load
 * generator (its text carries measured figures, so steps are counted), the test-only delay, and
 * how many others there are.
 */
function warningFacts(r: ResultFile): Record<string, string> {
  // one line per run says in how many steps; files written before had a line per step
  const busy = r.warnings
    .filter((w) => w.includes(BUSY))
    .reduce((n, w) => n + Number(/in (\d+) of \d+ steps/.exec(w)?.[1] ?? 1), 0);
  const delays = [...new Set(r.warnings.flatMap((w) => DELAYED.exec(w)?.[1] ?? []))];
  const other = r.warnings.filter((w) => !w.includes(BUSY) && !DELAYED.test(w)).length;
  return {
    'load generator busy': busy ? `in ${int(busy)} of ${int(r.steps.length)} steps` : 'no',
    'test delay': delays.length ? `${delays.join(', ')} ms a call (a test run)` : 'none',
    'other warnings': int(other),
  };
}

function differences(base: ResultFile, next: ResultFile): string[] {
  const facts = (r: ResultFile): Record<string, string> => ({
    'dataset scale': String(r.config.scale),
    agents: r.config.agents.map(int).join(', '),
    'load stages': loadStages(r) ?? 'none',
    'step duration': `${r.config.durationMs / 1000} s`,
    'warm-up': `${r.config.warmupMs / 1000} s`,
    iterations: int(r.config.iterations),
    client: r.config.client,
    protocol: r.config.protocol,
    'open-loop rate': r.config.rate === null ? 'closed loop' : int(r.config.rate),
    targets: r.config.targets.map((t) => t.label).join(', '),
    CPU: `${r.environment.cpuModel} × ${r.environment.cpus}`,
    Node: r.environment.node,
    version: r.tool.version,
    ...warningFacts(r),
  });
  const a = facts(base);
  const b = facts(next);
  return Object.keys(a)
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k}: ${a[k]} → ${b[k]}`);
}

// ---------------------------------------------------------------------------------------------
// rendering

/** calls/s as every report writes a rate; a latency, in ms, as every report writes milliseconds. */
const value = (metric: Metric, v: number) => (metric === 'calls/s' ? rate(v) : ms(v * 1000));
const signed = (pct: number) => `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;

/** `slower` or `faster` when marked, `~` (noise) when not, `from 0` when there is no percentage to judge. */
export const verdict = (c: Change) =>
  c.changePct === null ? 'from 0' : !c.marked ? '~' : (c.slowerPct ?? 0) > 0 ? 'slower' : 'faster';

function cell(c: Change | undefined, strong: (s: string) => string): string {
  if (!c) return '–';
  const values = `${value(c.metric, c.base)} → ${value(c.metric, c.next)}`;
  if (c.changePct === null) return `${values} (no %: base 0)`;
  const text = `${values} (${signed(c.changePct)})`;
  const v = verdict(c);
  return v === '~' ? `${text} ~` : v === 'slower' ? strong(`${text} ▼ slower`) : `${text} ▲ faster`;
}

export function headline(c: Comparison): string {
  const all = c.rows.flatMap((r) => r.changes);
  const marked = all.filter((x) => x.marked);
  const slower = marked.filter((x) => (x.slowerPct ?? 0) > 0).length;
  const fromZero = all.filter((x) => x.changePct === null).length;
  return (
    `${int(marked.length)} of ${int(all.length)} changes beyond noise (${int(slower)} slower, ${int(marked.length - slower)} faster). ` +
    (fromZero ? `${int(fromZero)} from a base of 0 have no percentage and are not judged. ` : '') +
    `Noise rule: marked when |change| > ${c.noisePct}% and the per-iteration ranges do not overlap (iterations: base ${c.iterations.base}, new ${c.iterations.next}); ~ = within noise.`
  );
}

export function compareSections(c: Comparison, markdown = false): Section[] {
  const strong = markdown ? (s: string) => `**${s}**` : (s: string) => s;
  const rows = c.rows.map((r) => [
    r.target,
    r.workload,
    int(r.agents),
    ...(r.only
      ? [`only in ${r.only}`, '', '']
      : METRICS.map((m) =>
          cell(
            r.changes.find((x) => x.metric === m),
            strong,
          ),
        )),
  ]);
  const note = [headline(c), ...c.cautions.map((text) => `Caution: ${text}.`)].join(' ');
  const sections: Section[] = [
    { title: 'Changes from base to new', note, head: ['target', 'workload', 'agents', ...METRICS], rows },
  ];
  if (c.differences.length)
    sections.push({ title: 'The runs differ in', head: ['what: base → new'], rows: c.differences.map((d) => [d]) });
  return sections;
}

export function compareJson(
  c: Comparison,
  files: { base: string; next: string },
  failOnRegressionPct?: number,
): string {
  const regressed =
    failOnRegressionPct === undefined
      ? undefined
      : regressions(c, failOnRegressionPct).map(({ row, change }) => ({
          target: row.target,
          workload: row.workload,
          agents: row.agents,
          ...change,
        }));
  return `${JSON.stringify({ base: files.base, new: files.next, ...c, ...(regressed ? { failOnRegressionPct, regressions: regressed } : {}) }, null, 2)}\n`;
}

/**
 * A change as the HTML page marks it: the arrow says which way the value went, its tone whether
 * that is good (more calls/s, lower latency) or bad, beyond noise; within noise or from 0, no tone.
 */
export function changeMark(c: Change): { arrow: '▲' | '▼' | ''; tone: 'good' | 'bad' | 'noise' } {
  const arrow = c.next > c.base ? '▲' : c.next < c.base ? '▼' : '';
  const v = verdict(c);
  return { arrow, tone: v === 'slower' ? 'bad' : v === 'faster' ? 'good' : 'noise' };
}

/** One metric's changes as bars, one series per tone (so a bar's colour says good or bad, as the arrows do). */
function changeChart(rows: readonly CompareRow[], metric: Metric, better: 'higher' | 'lower'): ChartSpec {
  const changes = rows.map((r) => r.changes.find((x) => x.metric === metric));
  const tones = [
    ['good', better === 'higher' ? 'faster (up)' : 'faster (down)'],
    ['bad', better === 'higher' ? 'slower (down)' : 'slower (up)'],
    ['noise', 'within noise'],
  ] as const;
  return dropEmptySeries({
    id: slug('change', metric),
    title: `${metric}: change from base to new, % (${better} is better)`,
    // the steps by their row number in the table below: their names would not fit under the bars
    x: { label: 'step (# in the table)', ticks: rows.map((_, i) => ({ value: i, label: String(i + 1) })) },
    axes: [{ scale: 'pct', label: `% change, ${better} is better` }],
    series: tones.map(([tone, label]) => ({ label, scale: 'pct', color: MEANING[tone], bars: true })),
    data: [
      rows.map((_, i) => i),
      ...tones.map(([tone]) =>
        changes.map((c) => (c && c.changePct !== null && changeMark(c).tone === tone ? c.changePct : null)),
      ),
    ],
  });
}

/** A change in the page's table: the values, the percentage, the arrow of its direction, coloured good or bad. */
function changeCell(c: Change | undefined): Cell {
  if (!c) return '–';
  const values = `${value(c.metric, c.base)} → ${value(c.metric, c.next)}`;
  if (c.changePct === null) return { text: `${values} (no %: base 0)`, tone: 'noise' };
  const { arrow, tone } = changeMark(c);
  const word = tone === 'noise' ? '~' : verdict(c);
  return { text: `${values} (${signed(c.changePct)}) ${arrow} ${word}`.replace('  ', ' '), value: c.changePct, tone };
}

/** The comparison as a self-contained page: calls/s (up is good) charted apart from p50 and p99 (up is bad), and the table. */
export function compareHtml(c: Comparison, files: { base: string; next: string }): string {
  const rows = c.rows.filter((r) => !r.only);
  const charts = rows.length
    ? [
        changeChart(rows, 'calls/s', 'higher'),
        changeChart(rows, 'p50 ms', 'lower'),
        changeChart(rows, 'p99 ms', 'lower'),
      ].filter((chart) => chart.series.length > 0)
    : [];
  let n = 0;
  const table: Table = {
    head: ['#', 'target', 'workload', 'agents', ...METRICS],
    rows: c.rows.map((r) => ({
      cells: [
        r.only ? '' : String(++n),
        r.target,
        r.workload,
        int(r.agents),
        ...(r.only
          ? [`only in ${r.only}`, '', '']
          : METRICS.map((m) => changeCell(r.changes.find((x) => x.metric === m)))),
      ],
    })),
  };
  const [changes, diffs] = compareSections(c);
  const body = [
    `<header><h1>mcp-db-bench compare</h1><p class="note">base ${esc(files.base)} → new ${esc(files.next)}</p></header>`,
    `<section id="changes"><h2>${esc(changes!.title)}</h2><p class="note" data-summary="headline">${esc(headline(c))}</p>`,
    `<p class="note">▲ up, ▼ down; <span class="good">green: better</span>, <span class="bad">red: worse</span> (beyond noise), grey: within noise.</p>`,
    charts.map((chart) => `<div class="block"><div class="chart" data-chart="${esc(chart.id)}"></div></div>`).join(''),
    `<div class="numbers wide">${htmlTable(table)}</div></section>`,
    diffs
      ? `<section id="differences"><h2>${esc(diffs.title)}</h2><div class="numbers">${htmlTable({ head: diffs.head, rows: diffs.rows.map((cells) => ({ cells })) })}</div></section>`
      : '',
  ].join('\n');
  return htmlDocument('mcp-db-bench compare', body, charts);
}
