import { overran, type RatioVerdict, type ResultFile, type StepResult, stepRate } from '@mcp-db-bench/contract';
import { rate } from '../format.js';
import { medianRate } from '../render/groups.js';
import type { ChartSpec, SeriesSpec } from '../render/html/charts.js';
import { seriesColor } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';

export { rateCell, ratioCell } from '../render/html/context.js';

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

/** A ratio a finding shows, with its verdict, named so that the same ratio can be found in another run of the study. */
export interface Claim {
  finding: string;
  what: string;
  verdict: RatioVerdict;
}

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

/** A ratio's interval for a chart's whisker (none without one: too few pairs). */
export const whisker = (v: RatioVerdict | undefined): [number, number] | null =>
  v && Number.isFinite(v.low) && Number.isFinite(v.high) ? [v.low, v.high] : null;

/** A ratio's median for a chart's bar (none when withheld for want of pairs). */
export const barValue = (v: RatioVerdict | undefined): number | null =>
  v && Number.isFinite(v.median) ? v.median : null;

/** A series' bars and whiskers, from one ratio per category. */
export const verdictBars = (verdicts: readonly (RatioVerdict | undefined)[]) => ({
  values: verdicts.map(barValue),
  intervals: verdicts.map(whisker),
});

/** A series' colour among its chart's series, by their labels. */
export const colorAmong = (labels: readonly string[], label: string) =>
  colorOf(
    labels.map((l) => ({ label: l })),
    label,
  );

/** Median rate of the steps, in their unit (committed/s for transfers); undefined without steps. */
export const stepsRate = (steps: readonly StepResult[]) => (steps.length ? medianRate(steps) : undefined);

/** The iterations' range of rates, for a whisker (none from one iteration). */
export function rateRange(steps: readonly StepResult[]): [number, number] | null {
  const rates = steps.map(stepRate);
  return rates.length > 1 ? [Math.min(...rates), Math.max(...rates)] : null;
}

/** A median rate as a cell, "(overran)" behind it when most of its steps overran. */
export function stepsRateCell(steps: readonly StepResult[]): Cell {
  const x = stepsRate(steps);
  if (x === undefined) return '–';
  return { text: `${rate(x)}${steps.filter(overran).length * 2 > steps.length ? ' (overran)' : ''}`, value: x };
}

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
