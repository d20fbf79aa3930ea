import { formatRatio, type RatioInterval, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import type { ChartSpec, SeriesSpec } from '../render/html/charts.js';
import { seriesColor } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import { callsPerSecond, int, median } from '../render/numbers.js';

/**
 * One finding of the study, a pure function of its result files: a table whose ratios carry
 * their interval, a chart of the same numbers, and the commands that measured them.
 */
export interface Finding {
  id: string;
  title: string;
  note: string;
  head: string[];
  rows: Cell[][];
  /** none where the table says it all (the rerun's agreement) */
  chart?: ChartSpec;
  /** the command lines of the result files it reads (config.command), each once */
  commands: string[];
}

/** A ratio a finding claims, named so that the same claim can be found in another run of the study. */
export interface Claim {
  finding: string;
  what: string;
  ratio: RatioInterval;
}

export const ms = (us: number) => us / 1000;
export const msText = (x: number) => (x >= 10 ? x.toFixed(1) : x.toFixed(2));
/** A rate as the reports print counts: whole and grouped. */
export const rate = int;

/** A ratio as a cell: its text ("no difference measured" when the interval crosses 1), its median as the value. */
export function ratioCell(r: RatioInterval | undefined): Cell {
  if (!r) return '–';
  return { text: formatRatio(r), value: r.median, tone: r.differs ? (r.median > 1 ? 'good' : 'bad') : 'noise' };
}

export const rateCell = (x: number | undefined): Cell => (x === undefined ? '–' : { text: rate(x), value: x });

/** Targets in the order the files list them, each with its engine. */
export function targetsOf(files: readonly ResultFile[]): { label: string; engine: string }[] {
  const seen = new Map<string, string>();
  for (const f of files)
    for (const t of f.config.targets) if (!seen.has(t.label)) seen.set(t.label, t.engine ?? t.label);
  return [...seen].map(([label, engine]) => ({ label, engine }));
}

export const commandsOf = (files: readonly ResultFile[]) => [
  ...new Set(files.flatMap((f) => (f.config.command ? [f.config.command] : []))),
];

export const colorOf = (targets: readonly { label: string }[], label: string) =>
  seriesColor(
    { subject: label, indexes: null },
    targets.map((t) => t.label),
  );

/** A ratio's interval for a chart's whisker (none from one iteration). */
export const whisker = (r: RatioInterval | undefined): [number, number] | null =>
  r && r.n > 1 ? [r.low, r.high] : null;

/**
 * A step's rate in the workload's own unit: committed transactions per second where the step
 * counts commits (transfer), calls per second otherwise.
 */
export const unitRate = (s: StepResult) =>
  s.commits ? (s.durationMs > 0 ? s.commits.committed / (s.durationMs / 1000) : 0) : callsPerSecond(s);

/** Median rate of the steps (in their unit). */
export const medianRate = (steps: readonly StepResult[]) => (steps.length ? median(steps.map(unitRate)) : undefined);

/** The iterations' range of rates, for a whisker (none from one iteration). */
export function rateRange(steps: readonly StepResult[]): [number, number] | null {
  const rates = steps.map(unitRate);
  return rates.length > 1 ? [Math.min(...rates), Math.max(...rates)] : null;
}

/**
 * A step whose calls outlast it by more than half its length measured how many calls happened to
 * end in its window, not a rate (a whole-table grouping of seconds in a 2 s step): it gives no ratio.
 */
export const overran = (s: StepResult) => (s.overrun?.lastEndedAfterMs ?? 0) > s.durationMs / 2;

/**
 * Per iteration both measured: other's rate over base's (the sides of one iteration ran close in
 * time); an iteration where either side made no call or overran is left out.
 */
export function pairedRatios(base: readonly StepResult[], other: readonly StepResult[]): number[] {
  return base.flatMap((b) => {
    const o = other.find((s) => s.iteration === b.iteration);
    return o && unitRate(b) > 0 && unitRate(o) > 0 && !overran(b) && !overran(o) ? [unitRate(o) / unitRate(b)] : [];
  });
}

/** A paired ratio as a cell (`r` from `pairedRatios` of these steps): "overran" when every pair was left out for it. */
export function pairCell(
  r: RatioInterval | undefined,
  base: readonly StepResult[],
  other: readonly StepResult[],
): Cell {
  if (r) return ratioCell(r);
  return [...base, ...other].some(overran) ? { text: 'overran', tone: 'noise' } : '–';
}

/** A median rate as a cell, "(overran)" behind it when most of its steps overran. */
export function stepsRateCell(steps: readonly StepResult[]): Cell {
  const x = medianRate(steps);
  if (x === undefined) return '–';
  return { text: `${rate(x)}${steps.filter(overran).length * 2 > steps.length ? ' (overran)' : ''}`, value: x };
}

/** The index profile a file's cross-database figures use: its last (the optimized one in the study). */
export const lastIndexes = (f: ResultFile) => f.config.indexes.at(-1) ?? null;

/** A bar chart over categories, a series per bar (whiskers where given). */
export function barChart(
  id: string,
  title: string,
  categories: string[],
  axis: { label: string; log?: 10 },
  series: { label: string; color: string; values: (number | null)[]; intervals?: ([number, number] | null)[] }[],
): ChartSpec {
  return {
    id,
    title,
    x: { label: '', ticks: categories.map((label, value) => ({ value, label })) },
    axes: [{ scale: 'y', label: axis.label, ...(axis.log ? { log: axis.log } : {}) }],
    series: series.map(
      (s): SeriesSpec => ({
        label: s.label,
        scale: 'y',
        color: s.color,
        bars: true,
        ...(s.intervals ? { intervals: s.intervals } : {}),
      }),
    ),
    data: [categories.map((_, i) => i), ...series.map((s) => s.values)],
  };
}
