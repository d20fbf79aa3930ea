import type { Comparison, ResultFile, StepResult } from '@mcp-db-bench/contract';
import { comparisonsOf } from '../comparisons.js';
import { shade } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import { lastIndexSet } from '../render/ratios.js';
import type { Judged } from '../verdicts.js';
import {
  type Claim,
  colorOf,
  commandsOf,
  type Finding,
  rateRange,
  ratioCell,
  stepsRate,
  stepsRateCell,
  targetsOf,
} from './common.js';

interface Point {
  target: string;
  workload: string;
  agents: number;
  rate: number;
  steps: StepResult[];
  range: [number, number] | null;
  /** against the fewest agents: the run's comparison; none for the fewest themselves */
  comparison?: Comparison;
  reference: boolean;
}

/** The files that scale agents: more than one count, and not the session segment. */
const scaled = (files: readonly ResultFile[]) =>
  files.filter((f) => f.config.agents.length > 1 && !f.config.workloads.includes('session-init'));

/** Per database and workload: the rate at each agent count (last index set), and the run's comparison with the fewest. */
function scalingPoints(files: readonly ResultFile[]): Point[] {
  return scaled(files).flatMap((f) => {
    const indexes = lastIndexSet(f);
    const against = comparisonsOf(f).filter((c) => c.kind === 'agents');
    return f.config.workloads.flatMap((workload) =>
      f.config.targets.flatMap((t) => {
        const at = (agents: number) =>
          f.steps.filter(
            (s) => s.target === t.label && s.workload === workload && s.indexes === indexes && s.agents === agents,
          );
        const first = Math.min(...f.config.agents);
        return f.config.agents.flatMap((agents): Point[] => {
          const here = stepsRate(at(agents));
          if (here === undefined) return [];
          const reference = agents === first;
          const comparison = against.find(
            (c) =>
              c.other.target === t.label &&
              c.other.indexes === indexes &&
              c.workload === workload &&
              c.agents === agents,
          );
          return [
            {
              target: t.label,
              workload,
              agents,
              rate: here,
              steps: at(agents),
              range: rateRange(at(agents)),
              ...(comparison && !reference ? { comparison } : {}),
              reference,
            },
          ];
        });
      }),
    );
  });
}

export const scalingClaims = (files: readonly ResultFile[], j: Judged): Claim[] =>
  scalingPoints(files).flatMap((p) => {
    const verdict = j.of(p.comparison);
    return verdict
      ? [{ finding: 'concurrency scaling', what: `${p.target} ${p.workload} × ${p.agents}`, verdict }]
      : [];
  });

/**
 * Concurrency scaling: per database and workload, the rate at each agent count (optimized
 * indexes), and its ratio to the fewest agents paired per iteration (the steps of one iteration
 * ran close in time).
 */
export function concurrencyScaling(files: readonly ResultFile[], j: Judged): Finding | undefined {
  const points = scalingPoints(files);
  if (!points.length) return undefined;
  const used = scaled(files);
  const targets = targetsOf(used);
  const workloads = [...new Set(points.map((p) => p.workload))];
  const agentsAll = [...new Set(points.map((p) => p.agents))].sort((a, b) => a - b);
  const lines = [...new Set(points.map((p) => `${p.target}\u0000${p.workload}`))].map((key) => {
    const [target, workload] = key.split('\u0000') as [string, string];
    const mine = points.filter((p) => p.target === target && p.workload === workload);
    const at = (a: number) => mine.find((p) => p.agents === a);
    return {
      label: `${target} ${workload}`,
      color: shade(colorOf(targets, target), workloads.indexOf(workload), workloads.length),
      values: agentsAll.map((a) => at(a)?.rate ?? null),
      ranges: agentsAll.map((a) => at(a)?.range ?? null),
    };
  });
  const rows: Cell[][] = points.map((p) => [
    p.target,
    p.workload,
    String(p.agents),
    stepsRateCell(p.steps),
    p.reference ? '1 (reference)' : ratioCell(j.of(p.comparison)),
  ]);
  return {
    id: 'concurrency',
    title: 'Concurrency scaling per database',
    note:
      'Calls/s (transfers: committed/s) at each agent count (optimized indexes, median of the iterations) and the ' +
      'ratio to the fewest agents, paired per iteration with its interval. In the chart each database has its ' +
      `colour, each workload a shade of it, palest first (${workloads.join(', ')}); whiskers span the iterations.`,
    head: ['database', 'workload', 'agents', 'per s', 'against the fewest agents'],
    rows,
    chart: {
      id: 'concurrency',
      title: 'Calls/s by agents',
      x: { label: 'agents', log: 2 },
      axes: [{ scale: 'y', label: 'per s', log: 10 }],
      series: lines.map((l) => ({ label: l.label, scale: 'y', color: l.color, intervals: l.ranges })),
      data: [agentsAll, ...lines.map((l) => l.values)],
    },
    commands: commandsOf(used),
  };
}
