import type { Comparison, ResultFile, StepResult } from '@mcp-db-bench/contract';
import { comparisonsOf, sidesOf, stepsOf } from '../comparisons.js';
import { shade } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import type { Judged } from '../verdicts.js';
import {
  barChart,
  type Claim,
  colorOf,
  commandsOf,
  type Finding,
  ratioCell,
  stepsRateCell,
  targetsOf,
  verdictBars,
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

export const indexClaims = (files: readonly ResultFile[], j: Judged): Claim[] =>
  indexRatios(files).flatMap((r) => {
    const verdict = j.of(r.comparison);
    return verdict ? [{ finding: 'index speed-up', what: `${r.target} ${r.workload} × ${r.agents}`, verdict }] : [];
  });

export function indexEffect(files: readonly ResultFile[], j: Judged): Finding | undefined {
  const ratioOf = (c: Comparison | undefined) => j.of(c);
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
    ratioCell(j.of(r.comparison)),
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
      'interval, judged by the claims rules (the legend above). The chart shows the medians on a log axis, each ' +
      'with its interval: a colour per database, paler for fewer agents.',
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
        ...verdictBars(categories.map((c) => ratioOf(at(c, b.key)))),
      })),
    ),
    commands: commandsOf(used),
  };
}
