import { type Comparison, comparisonRatio, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { comparisonsOf, sidesOf, stepsOf } from '../comparisons.js';
import { shade } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import {
  barChart,
  type Claim,
  colorOf,
  commandsOf,
  type Finding,
  ratioCell,
  stepsRateCell,
  targetsOf,
  whisker,
} from './common.js';

interface IndexRatio {
  target: string;
  workload: string;
  agents: number;
  base: StepResult[];
  other: StepResult[];
  comparison: Comparison;
}

/** Per database, workload and agents the run compared (its `comparisons`): optimized over baseline, paired by iteration. */
function indexRatios(files: readonly ResultFile[]): IndexRatio[] {
  return files.flatMap((f) =>
    comparisonsOf(f)
      .filter((c) => c.kind === 'indexes')
      .map((c) => {
        const sides = sidesOf(c);
        return {
          target: c.base.target,
          workload: c.workload,
          agents: c.agents,
          base: stepsOf(f, sides.base),
          other: stepsOf(f, sides.other),
          comparison: c,
        };
      }),
  );
}

export const indexClaims = (files: readonly ResultFile[]): Claim[] =>
  indexRatios(files).flatMap((r) => {
    const ratio = comparisonRatio(r.comparison);
    return ratio ? [{ finding: 'index speed-up', what: `${r.target} ${r.workload} × ${r.agents}`, ratio }] : [];
  });

const ratioOf = (c: Comparison | undefined) => c && comparisonRatio(c);

export function indexEffect(files: readonly ResultFile[]): Finding | undefined {
  const ratios = indexRatios(files);
  if (!ratios.length) return undefined;
  const used = files.filter((f) => comparisonsOf(f).some((c) => c.kind === 'indexes'));
  const targets = targetsOf(used);
  const rows: Cell[][] = ratios.map((r) => [
    r.target,
    r.workload,
    String(r.agents),
    stepsRateCell(r.base),
    stepsRateCell(r.other),
    ratioCell(r.comparison),
  ]);
  // a bar per database and agent count, grouped by workload: few enough groups for level labels
  const categories = [...new Set(ratios.map((r) => r.workload))];
  const agentCounts = [...new Set(ratios.map((r) => r.agents))].sort((a, b) => a - b);
  const at = (workload: string, key: string) =>
    ratios.find((r) => r.workload === workload && `${r.target} × ${r.agents}` === key)?.comparison;
  const bars = targets.flatMap((t) =>
    agentCounts.map((agents, i) => ({
      key: `${t.label} × ${agents}`,
      color: shade(colorOf(targets, t.label), i, agentCounts.length),
    })),
  );
  return {
    id: 'index-effect',
    title: 'The index effect per database',
    note:
      'Optimized over baseline indexes: calls/s (transfers: committed/s) paired per iteration, median and its ' +
      'interval. "~ (low–high)" is no difference measured: the interval crosses 1.0. The chart shows the medians on ' +
      'a log axis, each with its interval: a colour per database, paler for fewer agents.',
    head: ['database', 'workload', 'agents', 'baseline per s', 'optimized per s', 'speed-up'],
    rows,
    chart: barChart(
      'index-effect',
      'Index speed-up (optimized / baseline, median)',
      categories,
      { label: 'speed-up ×', log: 10 },
      bars.map((b) => ({
        label: b.key,
        color: b.color,
        values: categories.map((c) => ratioOf(at(c, b.key))?.median ?? null),
        intervals: categories.map((c) => whisker(ratioOf(at(c, b.key)))),
      })),
    ),
    commands: commandsOf(used),
  };
}
