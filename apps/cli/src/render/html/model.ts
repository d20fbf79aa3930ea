import { decode, type Histogram, merge, summary } from '@mcp-db-bench/agent';
import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { callsPerSecond } from '../numbers.js';
import { roundLabel } from '../progress.js';
import { efficiency, type Group, groupSteps, kneeIndex, medianThroughput, skippedLines } from '../report.js';
import { formatStages } from '../stages.js';
import { type ChartSpec, color, type SeriesSpec, slug } from './charts.js';

/**
 * The HTML report's content as data: every number, chart series and table cell, computed from
 * the result files alone by pure functions. page.ts only turns this into markup.
 */

/** One result file and the name it goes by in the report. */
export interface Run {
  label: string;
  result: ResultFile;
}

/** A table cell: its text, and the exact number behind it (written as data-value) where there is one. */
export type Cell = string | { text: string; value: number };

export interface Table {
  head: string[];
  rows: { key?: string; cells: Cell[] }[];
}

/** A chart with the numbers beside it; a block without a chart is a table alone. */
export interface Block {
  chart?: ChartSpec;
  table: Table;
}

export interface ReportSection {
  id: string;
  title: string;
  note?: string;
  blocks: Block[];
}

export interface RunSummary {
  label: string;
  /** key (data-summary), what it is, the text shown and the exact value where it is a number */
  facts: { key: string; label: string; text: string; value?: number }[];
  warnings: string[];
  /** workloads a target could not serve (never errors) */
  notes: string[];
}

export interface ReportModel {
  runs: RunSummary[];
  sections: ReportSection[];
}

export function reportModel(runs: readonly Run[]): ReportModel {
  const ctx = context(runs);
  const sections = [
    spectrumSection(ctx),
    scalingSection(ctx),
    timelineSection(ctx),
    indexSection(ctx),
    sessionInitSection(runs),
    decompositionSection(runs),
    tokenSection(runs),
    errorSection(ctx),
  ].filter((s): s is ReportSection => s !== undefined && s.blocks.length > 0);
  return { runs: runs.map(runSummary), sections: uniqueChartIds(sections) };
}

/**
 * Chart ids are slugs of free text (run labels, target rounds), and slugs of different texts can
 * be equal (`Main` and `main`, `run (2)` and `run-2`, any two non-ASCII labels): a second chart
 * with the same id would draw into the first one's slot. A repeat gets its chart's position on
 * the page, so no two ids are equal; the first keeps its readable id.
 */
export function uniqueChartIds(sections: readonly ReportSection[]): ReportSection[] {
  const taken = new Set<string>();
  let position = 0;
  const unique = (chart: ChartSpec): ChartSpec => {
    position++;
    const base = chart.id || 'chart';
    let id = base;
    for (let n = position; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return id === chart.id ? chart : { ...chart, id };
  };
  return sections.map((s) => ({ ...s, blocks: s.blocks.map((b) => (b.chart ? { ...b, chart: unique(b.chart) } : b)) }));
}

// ---------------------------------------------------------------------------------------------
// numbers

/**
 * Where the percentile spectrum is read: 1/(1 − q) from 2 (p50) to 10,000 (p99.99), twenty
 * points a decade, so a log axis spaces them evenly (the HdrHistogram plot).
 */
export const SPECTRUM_LEVELS: readonly number[] = [2, ...Array.from({ length: 74 }, (_, i) => 10 ** ((i + 7) / 20))].map((x) => Number(x.toPrecision(12)));

export const SPECTRUM_TICKS = [
  { value: 2, label: 'p50' },
  { value: 10, label: 'p90' },
  { value: 100, label: 'p99' },
  { value: 1000, label: 'p99.9' },
  { value: 10000, label: 'p99.99' },
];

/**
 * Latency in ms at each spectrum level. A level beyond what the sample count resolves
 * (1/(1 − q) above the count: fewer than one call lies beyond it) is null, not the maximum.
 */
export function spectrum(h: Histogram, levels: readonly number[] = SPECTRUM_LEVELS): (number | null)[] {
  return levels.map((level) => (level <= h.totalCount ? h.getValueAtPercentile(100 * (1 - 1 / level)) / 1000 : null));
}

/** p50 … p99.99 and max in ms; a percentile the count cannot resolve is null. */
export function percentiles(h: Histogram): { p50: number | null; p90: number | null; p99: number | null; p999: number | null; p9999: number | null; max: number | null } {
  const at = (level: number) => (h.totalCount >= level ? h.getValueAtPercentile(100 * (1 - 1 / level)) / 1000 : null);
  return { p50: at(2), p90: at(10), p99: at(100), p999: at(1000), p9999: at(10000), max: h.totalCount ? summary(h).max / 1000 : null };
}

/** Interval calls/s along a step: each interval lasts until the next one starts (the last until the step ends). */
export function intervalRates(step: Pick<StepResult, 'intervals' | 'durationMs'>): { startMs: number; lengthMs: number; rate: number }[] {
  return step.intervals.map((interval, i) => {
    const end = Math.min(step.intervals[i + 1]?.atMs ?? step.durationMs, step.durationMs);
    const lengthMs = end - interval.atMs > 0 ? end - interval.atMs : 1000;
    return { startMs: interval.atMs, lengthMs, rate: interval.calls / (lengthMs / 1000) };
  });
}

// ---------------------------------------------------------------------------------------------
// shared context: the runs' step groups, and labels that name the run only when there are several

interface Context {
  runs: readonly Run[];
  /** per run, its step groups */
  groups: Group[][];
  name: (run: number, text: string) => string;
  workloads: string[];
}

function context(runs: readonly Run[]): Context {
  const groups = runs.map((r) => groupSteps(r.result.steps));
  return {
    runs,
    groups,
    name: (run, text) => (runs.length > 1 ? `${runs[run]!.label}: ${text}` : text),
    workloads: [...new Set(groups.flat().map((g) => g.workload))],
  };
}

const msText = (v: number | null) => (v === null ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const rateText = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
const pctText = (x: number) => `${Math.round(x * 100)}%`;
const num = (value: number | null, text: (v: number | null) => string = msText): Cell => (value === null ? '–' : { text: text(value), value });
const rateCell = (value: number): Cell => ({ text: rateText(value), value });
const groupHistogram = (g: Group) => merge(g.steps.map((s) => s.all.histogram));
const errorCount = (s: StepResult) => Object.values(s.errors).reduce((a, b) => a + b, 0);

// ---------------------------------------------------------------------------------------------
// summary

function runSummary(run: Run): RunSummary {
  const r = run.result;
  const e = r.environment;
  const c = r.config;
  const calls = r.steps.reduce((n, s) => n + s.calls, 0);
  const errors = r.steps.reduce((n, s) => n + errorCount(s), 0);
  const measuredMs = r.steps.reduce((n, s) => n + s.durationMs, 0);
  const stages = loadStages(r);
  return {
    label: run.label,
    facts: [
      { key: 'tool', label: 'tool', text: `${r.tool.name} ${r.tool.version}` },
      { key: 'started', label: 'started', text: r.startedAt },
      { key: 'targets', label: 'targets', text: c.targets.map((t) => (t.engine ? `${t.label} (${t.url ?? t.engine})` : `${t.label}${t.url ? ` (${t.url})` : ''}`)).join(', ') },
      { key: 'environment', label: 'environment', text: `${e.cpuModel} × ${e.cpus}, ${e.memoryMb} MB, Node ${e.node}, ${e.platform}/${e.arch}, load ${e.loadAverage.map((l) => l.toFixed(2)).join(' ')}` },
      { key: 'workloads', label: 'workloads', text: c.workloads.join(', ') },
      { key: 'agents', label: 'agents', text: c.agents.join(', ') },
      ...(stages ? [{ key: 'stages', label: 'load stages', text: stages }] : []),
      {
        key: 'configuration',
        label: 'configuration',
        text: `${c.durationMs / 1000} s per step after ${c.warmupMs / 1000} s warm-up · ${c.iterations} iteration(s) · ${c.client} client, ${c.protocol} protocol · ${c.rate ? `open loop at ${c.rate} calls/s` : 'closed loop'}${c.scale !== null ? ` · scale ${c.scale}` : ''}${c.indexes.length ? ` · indexes ${c.indexes.join(', ')}` : ''} · seed ${c.seed}`,
      },
      { key: 'steps', label: 'steps measured', text: String(r.steps.length), value: r.steps.length },
      { key: 'calls', label: 'successful calls', text: calls.toLocaleString('en-US'), value: calls },
      { key: 'errors', label: 'failed calls', text: errors.toLocaleString('en-US'), value: errors },
      { key: 'measured-seconds', label: 'measured time', text: `${(measuredMs / 1000).toFixed(1)} s`, value: measuredMs / 1000 },
    ],
    warnings: r.warnings,
    notes: skippedLines(r.skipped ?? []),
  };
}

/** A staged run's stages as typed: `agents 5s:1,2s:16` or `calls/s 10s:100,30s:1000`. */
export function loadStages(result: ResultFile): string | undefined {
  const stages = result.config.stages;
  return stages ? `${stages.kind === 'rate' ? 'calls/s' : 'agents'} ${formatStages(stages.stages)}` : undefined;
}

// ---------------------------------------------------------------------------------------------
// latency spectrum: one chart per workload, a series per run, round and agent count

function spectrumSection(ctx: Context): ReportSection {
  const blocks = ctx.workloads.map((workload): Block => {
    const series: SeriesSpec[] = [];
    const data: (number | null)[][] = [[...SPECTRUM_LEVELS]];
    const rows: Table['rows'] = [];
    ctx.groups.forEach((groups, run) => {
      for (const g of groups.filter((x) => x.workload === workload)) {
        const h = groupHistogram(g);
        const label = ctx.name(run, `${roundLabel(g)} × ${g.agents}`);
        series.push({ label, scale: 'ms', color: color(series.length) });
        data.push(spectrum(h));
        const p = percentiles(h);
        rows.push({
          key: `${ctx.runs[run]!.label}/${roundLabel(g)}/${workload}/${g.agents}`,
          cells: [label, { text: h.totalCount.toLocaleString('en-US'), value: h.totalCount }, num(p.p50), num(p.p90), num(p.p99), num(p.p999), num(p.p9999), num(p.max)],
        });
      }
    });
    return {
      chart: { id: slug('spectrum', workload), title: `${workload}: latency by percentile`, x: { label: 'percentile', log: 10, ticks: SPECTRUM_TICKS }, axes: [{ scale: 'ms', label: 'ms', log: 10 }], series, data },
      table: { head: ['series', 'calls', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'p99.99 ms', 'max ms'], rows },
    };
  });
  return {
    id: 'latency',
    title: 'Latency percentile spectrum',
    note: 'Each line is one workload step (all iterations merged): latency at every percentile, log scales. A line stops where its calls are too few to resolve rarer percentiles.',
    blocks,
  };
}

// ---------------------------------------------------------------------------------------------
// scaling: throughput and p99 against agents

export interface ScalingLine {
  agents: number[];
  throughput: number[];
  p99Ms: number[];
  efficiency: number[];
  /** the agent count after which throughput grows less than 10%, if any */
  knee: number | undefined;
}

/** One target round's sweep over agent counts, from its step groups. */
export function scalingLine(groups: readonly Group[]): ScalingLine {
  const sorted = [...groups].sort((a, b) => a.agents - b.agents);
  const agents = sorted.map((g) => g.agents);
  const throughput = sorted.map((g) => medianThroughput(g).median);
  const k = kneeIndex(throughput);
  return {
    agents,
    throughput,
    p99Ms: sorted.map((g) => summary(groupHistogram(g)).p99 / 1000),
    efficiency: efficiency(agents, throughput),
    knee: k === undefined ? undefined : agents[k],
  };
}

function scalingSection(ctx: Context): ReportSection {
  const blocks: Block[] = [];
  for (const workload of ctx.workloads) {
    const lines: { label: string; line: ScalingLine }[] = [];
    ctx.groups.forEach((groups, run) => {
      const rounds = new Map<string, Group[]>();
      for (const g of groups.filter((x) => x.workload === workload)) rounds.set(roundLabel(g), [...(rounds.get(roundLabel(g)) ?? []), g]);
      for (const [round, list] of rounds) lines.push({ label: ctx.name(run, round), line: scalingLine(list) });
    });
    if (!lines.some((l) => l.line.agents.length > 1)) continue;
    const agents = [...new Set(lines.flatMap((l) => l.line.agents))].sort((a, b) => a - b);
    const series: SeriesSpec[] = [];
    const data: (number | null)[][] = [agents];
    lines.forEach(({ label, line }, i) => {
      const at = (values: number[]) => agents.map((a) => values[line.agents.indexOf(a)] ?? null);
      series.push({ label: `${label} calls/s`, scale: 'rate', color: color(i) });
      data.push(at(line.throughput));
      series.push({ label: `${label} p99 ms`, scale: 'ms', color: color(i), dash: true });
      data.push(at(line.p99Ms));
    });
    const rows = lines.flatMap(({ label, line }) =>
      line.agents.map((a, i) => ({
        cells: [label, String(a), rateCell(line.throughput[i]!), { text: pctText(line.efficiency[i]!), value: line.efficiency[i]! }, num(line.p99Ms[i]!), i === 0 ? (line.knee === undefined ? `none up to ${line.agents.at(-1)}` : `${line.knee} agents`) : ''],
      })),
    );
    blocks.push({
      chart: {
        id: slug('scaling', workload),
        title: `${workload}: calls/s (solid) and p99 (dashed) by agents`,
        x: { label: 'agents', log: 2, ticks: agents.map((a) => ({ value: a, label: String(a) })) },
        axes: [
          { scale: 'rate', label: 'calls/s' },
          { scale: 'ms', label: 'p99 ms', log: 10, side: 'right' },
        ],
        series,
        data,
      },
      table: { head: ['series', 'agents', 'calls/s', 'efficiency', 'p99 ms', 'knee'], rows },
    });
  }
  return {
    id: 'scaling',
    title: 'Throughput and p99 by agents',
    note: 'Successful calls/s (median of iterations) and p99. Efficiency = X(N) / (N × X(first) / first): 100% is linear scaling. The knee is the agent count after which throughput grows less than 10%.',
    blocks,
  };
}

// ---------------------------------------------------------------------------------------------
// timeline: calls/s and p99 of every 1-second interval, the steps of a round one after another

interface TimelinePoint {
  x: number;
  rate: number;
  p99Ms: number | null;
  /** load stages: the agents active in the interval, and the calls/s the schedule intended */
  agents: number | null;
  intended: number | null;
}

/** A round's steps laid end to end: interval points (x in seconds of measured time) and where each step begins. */
export function timeline(steps: readonly StepResult[]): { points: TimelinePoint[]; markers: { x: number; label: string }[] } {
  const points: TimelinePoint[] = [];
  const markers: { x: number; label: string }[] = [];
  let offsetMs = 0;
  for (const s of steps) {
    markers.push({ x: offsetMs / 1000, label: `${s.workload} × ${s.agents}` });
    const rates = intervalRates(s);
    s.intervals.forEach((interval, i) => {
      const { startMs, lengthMs, rate } = rates[i]!;
      const h = decode(interval.histogram);
      points.push({
        x: (offsetMs + startMs + lengthMs / 2) / 1000,
        rate,
        p99Ms: h.totalCount ? h.getValueAtPercentile(99) / 1000 : null,
        agents: interval.agents ?? null,
        // rate stages record the calls intended in the interval
        intended: interval.rate === undefined ? null : interval.rate / (lengthMs / 1000),
      });
    });
    offsetMs += s.durationMs;
  }
  return { points, markers };
}

/**
 * Where each step begins, for runs overlaid on one timeline: the runs' markers once when they all
 * begin the same steps at the same seconds, else every run's own, named by its run (steps of
 * another duration, or another sweep, begin elsewhere: one run's lines would mislabel the other's).
 */
export function timelineMarkers(lines: readonly { name: (text: string) => string; markers: readonly { x: number; label: string }[] }[]): { x: number; label: string }[] {
  const first = JSON.stringify(lines[0]?.markers ?? []);
  if (lines.every((l) => JSON.stringify(l.markers) === first)) return [...(lines[0]?.markers ?? [])];
  return lines.flatMap((l) => l.markers.map((m) => ({ x: m.x, label: l.name(m.label) }))).sort((a, b) => a.x - b.x);
}

function timelineSection(ctx: Context): ReportSection {
  const rounds = [...new Set(ctx.runs.flatMap((r) => r.result.steps.map(roundLabel)))];
  const blocks = rounds.map((round): Block => {
    const lines = ctx.runs.map((run, i) => ({ run: i, ...timeline(run.result.steps.filter((s) => roundLabel(s) === round)) })).filter((l) => l.points.length);
    const xs = [...new Set(lines.flatMap((l) => l.points.map((p) => p.x)))].sort((a, b) => a - b);
    const series: SeriesSpec[] = [];
    const data: (number | null)[][] = [xs];
    const withAgents = lines.some((l) => l.points.some((p) => p.agents !== null));
    const withIntended = lines.some((l) => l.points.some((p) => p.intended !== null));
    for (const l of lines) {
      const at = (pick: (p: TimelinePoint) => number | null) => xs.map((x) => {
        const p = l.points.find((q) => q.x === x);
        return p ? pick(p) : null;
      });
      series.push({ label: ctx.name(l.run, 'calls/s'), scale: 'rate', color: color(l.run * 3) });
      data.push(at((p) => p.rate));
      series.push({ label: ctx.name(l.run, 'p99 ms'), scale: 'ms', color: color(l.run * 3 + 1), dash: true });
      data.push(at((p) => p.p99Ms));
      if (withIntended) {
        series.push({ label: ctx.name(l.run, 'intended calls/s'), scale: 'rate', color: color(l.run * 3), stepped: true });
        data.push(at((p) => p.intended));
      }
      if (withAgents) {
        series.push({ label: ctx.name(l.run, 'agents'), scale: 'agents', color: color(l.run * 3 + 2), stepped: true });
        data.push(at((p) => p.agents));
      }
    }
    const rows = ctx.runs.flatMap((run, r) =>
      run.result.steps
        .filter((s) => roundLabel(s) === round)
        .map((s) => {
          const rates = intervalRates(s).map((x) => x.rate);
          return {
            cells: [
              ctx.name(r, s.workload),
              String(s.agents),
              String(s.iteration),
              rateCell(callsPerSecond(s)),
              rates.length ? `${rateText(Math.min(...rates))}–${rateText(Math.max(...rates))}` : '–',
              num(summary(decode(s.all.histogram)).p99 / 1000),
              String(errorCount(s)),
            ],
          };
        }),
    );
    return {
      chart: {
        id: slug('timeline', round),
        title: `${round}: every second of every step`,
        x: { label: 'measured seconds' },
        axes: [
          { scale: 'rate', label: 'calls/s' },
          { scale: 'ms', label: 'p99 ms', log: 10, side: 'right' },
          ...(withAgents ? [{ scale: 'agents', label: 'agents', side: 'right' as const }] : []),
        ],
        series,
        data,
        markers: timelineMarkers(lines.map((l) => ({ name: (text: string) => ctx.name(l.run, text), markers: l.markers }))),
      },
      table: { head: ['step', 'agents', 'iteration', 'calls/s', 'per-second range', 'p99 ms', 'errors'], rows },
    };
  });
  return {
    id: 'timeline',
    title: 'Over time',
    note: 'Each step’s measured seconds, one after another (warm-ups left out): calls/s in each 1-second interval and that interval’s p99. A vertical line marks where a step begins (overlaid runs whose steps begin apart: each run’s own lines, named by its run). With load stages, the agents of each interval (and, ramping a rate, the calls/s intended) are stepped lines.',
    blocks,
  };
}

// ---------------------------------------------------------------------------------------------
// baseline versus optimized indexes

/** Optimized against baseline calls/s for each target, workload and agent count both rounds measured. */
export function indexPairs(groups: readonly Group[]): { target: string; workload: string; agents: number; baseline: number; optimized: number; speedup: number }[] {
  return groups
    .filter((g) => g.indexes === 'optimized')
    .flatMap((opt) => {
      const base = groups.find((g) => g.indexes === 'baseline' && g.target === opt.target && g.workload === opt.workload && g.agents === opt.agents);
      if (!base) return [];
      const baseline = medianThroughput(base).median;
      const optimized = medianThroughput(opt).median;
      return [{ target: opt.target, workload: opt.workload, agents: opt.agents, baseline, optimized, speedup: baseline > 0 ? optimized / baseline : 0 }];
    });
}

function indexSection(ctx: Context): ReportSection | undefined {
  const blocks = ctx.groups.flatMap((groups, run): Block[] => {
    const pairs = indexPairs(groups);
    if (!pairs.length) return [];
    const categories = pairs.map((p) => `${p.workload} × ${p.agents}${new Set(pairs.map((x) => x.target)).size > 1 ? ` ${p.target}` : ''}`);
    return [
      {
        chart: {
          id: slug('indexes', ctx.runs[run]!.label),
          title: ctx.name(run, 'calls/s, baseline and optimized indexes'),
          x: { label: 'workload × agents', ticks: categories.map((label, i) => ({ value: i, label })) },
          axes: [{ scale: 'rate', label: 'calls/s', log: 10 }],
          series: [
            { label: 'baseline', scale: 'rate', color: color(1), bars: true },
            { label: 'optimized', scale: 'rate', color: color(0), bars: true },
          ],
          data: [categories.map((_, i) => i), pairs.map((p) => p.baseline || null), pairs.map((p) => p.optimized || null)],
        },
        table: {
          head: ['target', 'workload', 'agents', 'baseline calls/s', 'optimized calls/s', 'speed-up'],
          rows: pairs.map((p) => ({ cells: [p.target, p.workload, String(p.agents), rateCell(p.baseline), rateCell(p.optimized), { text: `${p.speedup.toFixed(1)}×`, value: p.speedup }] })),
        },
      },
    ];
  });
  return { id: 'indexes', title: 'Baseline versus optimized indexes', note: 'Baseline has primary keys only; optimized adds foreign-key and filter-column indexes. Log scale.', blocks };
}

// ---------------------------------------------------------------------------------------------
// session init

function sessionInitSection(runs: readonly Run[]): ReportSection | undefined {
  const series: SeriesSpec[] = [];
  const data: (number | null)[][] = [[...SPECTRUM_LEVELS]];
  const rows: Table['rows'] = [];
  for (const run of runs) {
    for (const s of run.result.sessionInit) {
      const name = runs.length > 1 ? `${run.label}: ${roundLabel(s)}` : roundLabel(s);
      const kinds = [['cold', s.cold], ['warm', s.warm], ...(s.full ? [['full discovery', s.full] as const] : [])] as const;
      for (const [kind, stats] of kinds) {
        const h = decode(stats.histogram);
        series.push({ label: `${name} ${kind}`, scale: 'ms', color: color(series.length), dash: kind === 'warm' });
        data.push(spectrum(h));
        const p = percentiles(h);
        rows.push({ key: `${run.label}/${roundLabel(s)}/${kind}`, cells: [name, kind, { text: String(h.totalCount), value: h.totalCount }, num(p.p50), num(p.p90), num(p.p99), num(p.max)] });
      }
    }
  }
  if (!rows.length) return undefined;
  return {
    id: 'session-init',
    title: 'Session init, cold and warm',
    note: 'A whole agent start: handshake (or discover), tools/list, list_tables and describe_table for the task’s tables. Cold opens a new connection each time; warm reuses one; full discovery describes every table.',
    blocks: [
      {
        chart: { id: 'session-init', title: 'session init latency by percentile', x: { label: 'percentile', log: 10, ticks: SPECTRUM_TICKS }, axes: [{ scale: 'ms', label: 'ms', log: 10 }], series, data },
        table: { head: ['target', 'start', 'samples', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], rows },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// where the time goes

function decompositionSection(runs: readonly Run[]): ReportSection | undefined {
  const items = runs.flatMap((run) => run.result.decomposition.map((d) => ({ run, d })));
  if (!items.length) return undefined;
  const p50 = (stats: { histogram: string }) => summary(decode(stats.histogram)).p50 / 1000;
  const categories = items.map(({ run, d }) => `${runs.length > 1 ? `${run.label}: ` : ''}${d.target} ${d.operation}`);
  const values = items.map(({ d }) => ({ raw: p50(d.raw), echo: p50(d.echo), full: p50(d.full) }));
  return {
    id: 'decomposition',
    title: 'Where the time goes',
    note: 'One agent, p50. raw driver: the same statement through the database driver, no MCP; echo: an MCP tool call that skips the database (the protocol alone); full call: the tool call end to end.',
    blocks: [
      {
        chart: {
          id: 'decomposition',
          title: 'p50 ms: database alone, protocol alone, full call',
          x: { label: 'operation', ticks: categories.map((label, i) => ({ value: i, label })) },
          axes: [{ scale: 'ms', label: 'ms' }],
          series: [
            { label: 'raw driver', scale: 'ms', color: color(2), bars: true },
            { label: 'echo (protocol)', scale: 'ms', color: color(1), bars: true },
            { label: 'full call', scale: 'ms', color: color(0), bars: true },
          ],
          data: [categories.map((_, i) => i), values.map((v) => v.raw), values.map((v) => v.echo), values.map((v) => v.full)],
        },
        table: {
          head: ['operation', 'raw driver ms', 'echo ms', 'full call ms', 'protocol share', 'database share'],
          rows: values.map((v, i) => ({ cells: [categories[i]!, num(v.raw), num(v.echo), num(v.full), pctText(v.echo / v.full), pctText(v.raw / v.full)] })),
        },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// token cost (only where a run measured it)

/**
 * The run's token cost per target (`tokens`, from the untimed check pass): the tool list, the
 * whole session start, and each workload's median answer, as tokens of the counting tokenizer.
 */
export function tokenRecords(result: ResultFile): { target: string; counts: Record<string, number> }[] {
  return (result.tokens ?? []).map((t) => ({
    target: t.target,
    counts: {
      'tools/list': t.toolsList.tokens,
      'session start': t.sessionStart.tokens,
      ...Object.fromEntries(t.calls.map((c) => [`${c.workload} p50`, c.tokens.p50])),
    },
  }));
}

function tokenSection(runs: readonly Run[]): ReportSection | undefined {
  const records = runs.flatMap((run) => tokenRecords(run.result).map((t) => ({ ...t, target: runs.length > 1 ? `${run.label}: ${t.target}` : t.target })));
  if (!records.length) return undefined;
  const fields = [...new Set(records.flatMap((r) => Object.keys(r.counts)))];
  return {
    id: 'tokens',
    title: 'Token cost',
    note: `Tokens an agent’s model reads, per target (${runs.find((r) => r.result.tokens?.length)?.result.tokens?.[0]?.tokenizer ?? 'tokenizer'}; it approximates the host model’s): the tool list, the whole session start and each workload’s median answer.`,
    blocks: [
      {
        chart: {
          id: 'tokens',
          title: 'tokens per target',
          x: { label: 'target', ticks: records.map((r, i) => ({ value: i, label: r.target })) },
          axes: [{ scale: 'tokens', label: 'tokens' }],
          series: fields.map((f, i) => ({ label: f, scale: 'tokens', color: color(i), bars: true })),
          data: [records.map((_, i) => i), ...fields.map((f) => records.map((r) => r.counts[f] ?? null))],
        },
        table: { head: ['target', ...fields], rows: records.map((r) => ({ cells: [r.target, ...fields.map((f) => (r.counts[f] === undefined ? '–' : { text: r.counts[f].toLocaleString('en-US'), value: r.counts[f] }))] })) },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// errors by kind

function errorSection(ctx: Context): ReportSection {
  const kinds = [...new Set(ctx.runs.flatMap((r) => r.result.steps.flatMap((s) => Object.keys(s.errors))))].sort();
  const note = 'Failed calls by kind (never timed as latency), per step group.';
  if (!kinds.length) return { id: 'errors', title: 'Errors by kind', note: `${note} No call failed.`, blocks: [{ table: { head: ['errors'], rows: [{ cells: ['none'] }] } }] };
  const rows: Table['rows'] = [];
  const totals = ctx.runs.map((run) => kinds.map((k) => run.result.steps.reduce((n, s) => n + (s.errors[k] ?? 0), 0)));
  ctx.groups.forEach((groups, run) => {
    for (const g of groups) {
      const counts = kinds.map((k) => g.steps.reduce((n, s) => n + (s.errors[k] ?? 0), 0));
      if (counts.some((c) => c > 0)) rows.push({ cells: [ctx.name(run, roundLabel(g)), g.workload, String(g.agents), ...counts.map((c) => ({ text: c.toLocaleString('en-US'), value: c }))] });
    }
  });
  return {
    id: 'errors',
    title: 'Errors by kind',
    note,
    blocks: [
      {
        chart: {
          id: 'errors',
          title: 'failed calls by kind',
          x: { label: 'kind', ticks: kinds.map((label, i) => ({ value: i, label })) },
          axes: [{ scale: 'n', label: 'calls' }],
          series: ctx.runs.map((run, i) => ({ label: ctx.runs.length > 1 ? run.label : 'failed calls', scale: 'n', color: color(3 + i), bars: true })),
          data: [kinds.map((_, i) => i), ...totals],
        },
        table: { head: ['target', 'workload', 'agents', ...kinds], rows },
      },
    ],
  };
}
