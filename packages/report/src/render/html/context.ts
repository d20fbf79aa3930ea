import type { RatioVerdict } from '@mcp-db-bench/contract';
import { ms, rate, ratio } from '../../format.js';
import { type Group, groupSteps } from '../groups.js';
import { seriesColor } from './colors.js';
import type { Cell, Run } from './types.js';

export interface Context {
  runs: readonly Run[];
  /** per run, its step groups */
  groups: Group[][];
  name: (run: number, text: string) => string;
  workloads: string[];
  /** the colour of a target round's series in a run, the same on every chart (colors.ts) */
  colorOf: (run: number, round: { target: string; indexes: string | null }) => string;
}

export function context(runs: readonly Run[]): Context {
  const groups = runs.map((r) => groupSteps(r.result.steps));
  const subjects = subjectsOf(runs);
  const others = [...new Set(runs.flatMap((r, run) => r.result.steps.map((s) => subject(runs, run, s.target))))].filter(
    (x) => !subjects.includes(x),
  );
  return {
    runs,
    groups,
    name: (run, text) => (runs.length > 1 ? `${runs[run]!.label}: ${text}` : text),
    workloads: [...new Set(groups.flat().map((g) => g.workload))],
    colorOf: (run, round) =>
      seriesColor({ subject: subject(runs, run, round.target), indexes: round.indexes }, subjects, others),
  };
}

/** Who a series is about: a server, named by its run when several runs share the page. */
export const subject = (runs: readonly Run[], run: number, target: string) =>
  runs.length > 1 ? `${runs[run]!.label}: ${target}` : target;

/** Every server of every run, in order: each gets its colour. */
export const subjectsOf = (runs: readonly Run[]) =>
  runs.flatMap((r, run) => r.result.config.targets.map((t) => subject(runs, run, t.label)));

/** A number in ms as a cell, written as every report writes milliseconds (`ms`), its value for sorting. */
export const num = (value: number | null, text: (v: number) => string = (v) => ms(v * 1000)): Cell =>
  value === null ? '–' : { text: text(value), value };
/** A rate as a cell, as every report writes rates (`rate`); '–' when there is none. */
export const rateCell = (x: number | undefined): Cell => (x === undefined ? '–' : { text: rate(x), value: x });

/**
 * A ratio as a cell, by its verdict: its text as every report writes it (`ratio`), its median as
 * the value, and a tone: a claim up (good) or down (bad), or none (noise); '–' when there is none.
 */
export function ratioCell(v: RatioVerdict | undefined): Cell {
  if (!v) return '–';
  const tone = v.verdict === 'claim' ? (v.side === 'above' ? 'good' : 'bad') : 'noise';
  return { text: ratio(v), ...(Number.isFinite(v.median) ? { value: v.median } : {}), tone };
}
