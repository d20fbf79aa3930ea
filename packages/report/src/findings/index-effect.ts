import { type RatioInterval, type ResultFile, ratioInterval, type StepResult } from '@mcp-db-bench/contract';
import { shade } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import {
  barChart,
  type Claim,
  colorOf,
  commandsOf,
  type Finding,
  pairCell,
  pairedRatios,
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
  ratio?: RatioInterval;
}

/** Per database, workload and agents the run compared (its `comparisons`): optimized over baseline, paired by iteration. */
function indexRatios(files: readonly ResultFile[]): IndexRatio[] {
  return files.flatMap((f) =>
    (f.comparisons ?? [])
      .filter((c) => c.kind === 'indexes')
      .map((c) => {
        const side = (indexes: string | null) =>
          f.steps.filter(
            (s) =>
              s.target === c.base.target && s.workload === c.workload && s.agents === c.agents && s.indexes === indexes,
          );
        const [base, other] = [side(c.base.indexes), side(c.other.indexes)];
        return {
          target: c.base.target,
          workload: c.workload,
          agents: c.agents,
          base,
          other,
          // in the workload's unit (committed transfers, not their calls), paired as `comparisons` pairs
          ratio: ratioInterval(pairedRatios(base, other)),
        };
      }),
  );
}

export const indexClaims = (files: readonly ResultFile[]): Claim[] =>
  indexRatios(files).flatMap((r) =>
    r.ratio ? [{ finding: 'index speed-up', what: `${r.target} ${r.workload} × ${r.agents}`, ratio: r.ratio }] : [],
  );

export function indexEffect(files: readonly ResultFile[]): Finding | undefined {
  const ratios = indexRatios(files);
  if (!ratios.length) return undefined;
  const used = files.filter((f) => f.comparisons?.some((c) => c.kind === 'indexes'));
  const targets = targetsOf(used);
  const rows: Cell[][] = ratios.map((r) => [
    r.target,
    r.workload,
    String(r.agents),
    stepsRateCell(r.base),
    stepsRateCell(r.other),
    pairCell(r.ratio, r.base, r.other),
  ]);
  // a bar per database and agent count, grouped by workload: few enough groups for level labels
  const categories = [...new Set(ratios.map((r) => r.workload))];
  const agentCounts = [...new Set(ratios.map((r) => r.agents))].sort((a, b) => a - b);
  const at = (workload: string, key: string) =>
    ratios.find((r) => r.workload === workload && `${r.target} × ${r.agents}` === key)?.ratio;
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
        values: categories.map((c) => at(c, b.key)?.median ?? null),
        intervals: categories.map((c) => whisker(at(c, b.key))),
      })),
    ),
    commands: commandsOf(used),
  };
}
