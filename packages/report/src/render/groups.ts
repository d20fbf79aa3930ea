/**
 * A run's steps grouped as the tables show them: one group per target, index set, workload and
 * agent count, its iterations combined by their median (percentiles by merging histograms).
 */
import { goodput, type StepResult, stepRate } from '@mcp-db-bench/contract';
import { median } from '../format.js';
import { merge } from '../histogram.js';

export interface Group {
  key: string;
  target: string;
  indexes: string | null;
  workload: string;
  agents: number;
  steps: StepResult[];
}

export function groupSteps(steps: readonly StepResult[]): Group[] {
  const map = new Map<string, Group>();
  for (const s of steps) {
    const key = `${s.target}\u0000${s.indexes}\u0000${s.workload}\u0000${s.agents}`;
    const g = map.get(key) ?? {
      key,
      target: s.target,
      indexes: s.indexes,
      workload: s.workload,
      agents: s.agents,
      steps: [],
    };
    g.steps.push(s);
    map.set(key, g);
  }
  return [...map.values()];
}

/** The group's latencies: its iterations' histograms merged. */
export const groupHistogram = (g: Pick<Group, 'steps'>) => merge(g.steps.map((s) => s.all.histogram));

/** Median goodput (successful calls/s) over iterations, and the spread (max − min as a share of the median). */
export function medianGoodput(g: Pick<Group, 'steps'>): { median: number; spread: number } {
  const xs = g.steps.map(goodput);
  const m = median(xs);
  return { median: m, spread: m > 0 ? (Math.max(...xs) - Math.min(...xs)) / m : 0 };
}

/** Median rate over iterations in the workload's unit: committed/s where it counts commits, else calls/s. */
export const medianRate = (steps: readonly StepResult[]): number => median(steps.map(stepRate));

/** `label (indexes)`: how progress lines and reports name a target in a round. */
export const roundLabel = (s: { target: string; indexes: string | null }) =>
  s.indexes ? `${s.target} (${s.indexes})` : s.target;

/** HTTP 503: the server turned a caller away (a full session table refuses `initialize` with it). */
export const REFUSED = 'http_503';
