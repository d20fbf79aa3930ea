import type { StepResult } from '@mcp-db-bench/contract';
import { merge } from '../../histogram.js';
import { rate } from '../numbers.js';
import { type Group, groupSteps } from '../report.js';
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

const msText = (v: number | null) =>
  v === null ? '–' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
export const rateText = rate;
export const pctText = (x: number) => `${Math.round(x * 100)}%`;
export const num = (value: number | null, text: (v: number | null) => string = msText): Cell =>
  value === null ? '–' : { text: text(value), value };
export const rateCell = (value: number): Cell => ({ text: rateText(value), value });
export const groupHistogram = (g: Group) => merge(g.steps.map((s) => s.all.histogram));
export const errorCount = (s: StepResult) => Object.values(s.errors).reduce((a, b) => a + b, 0);
