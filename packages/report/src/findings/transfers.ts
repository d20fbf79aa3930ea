import { failedCalls, type ResultFile } from '@mcp-db-bench/contract';
import { int } from '../format.js';
import type { Cell } from '../render/html/types.js';
import { lastIndexSet } from '../render/ratios.js';
import { barChart, colorOf, commandsOf, type Finding, rateCell, rateRange, stepsRate, targetsOf } from './common.js';

/** A count as a cell. */
const count = (n: number): Cell => ({ text: int(n), value: n });

/**
 * Transfers per engine: committed transfers per second (the workload's unit, not its calls), the
 * conflicts and failures, the ledger's verification and the dataset's restore. Engine against
 * engine, with intervals: the engines' finding.
 */
export function transfers(files: readonly ResultFile[]): Finding | undefined {
  const f = files.find((f) => f.config.workloads.includes('transfer'));
  if (!f) return undefined;
  const targets = targetsOf([f]);
  const rows: Cell[][] = [];
  const values = new Map(targets.map((t) => [t.label, f.config.agents.map((): number | null => null)]));
  const ranges = new Map(targets.map((t) => [t.label, f.config.agents.map((): [number, number] | null => null)]));
  for (const t of targets)
    f.config.agents.forEach((agents, i) => {
      const steps = f.steps.filter(
        (s) =>
          s.target === t.label && s.workload === 'transfer' && s.agents === agents && s.indexes === lastIndexSet(f),
      );
      const perSecond = stepsRate(steps);
      if (perSecond === undefined) return;
      values.get(t.label)![i] = perSecond;
      ranges.get(t.label)![i] = rateRange(steps);
      const sum = (of: (s: (typeof steps)[number]) => number) => steps.reduce((n, s) => n + of(s), 0);
      const failed = sum((s) => (s.commits ? s.commits.failed : failedCalls(s)));
      rows.push([
        t.label,
        String(agents),
        rateCell(perSecond),
        count(sum((s) => s.commits?.conflicts ?? 0)),
        count(failed),
        steps.every((s) => s.verification?.ok !== false) ? 'yes' : 'NO',
        steps.every((s) => s.restored?.ok !== false) ? 'yes' : 'NO',
      ]);
    });
  return {
    id: 'transfers',
    title: 'Transfers per engine',
    note:
      'Money moved between accounts, one transaction a transfer: committed transfers per second (median of the ' +
      'iterations; whiskers span them), conflicts (a lost race or deadlock, nothing applied) and failed calls summed ' +
      'over the iterations, the ledger verified after every step and the dataset restored. Engine against engine ' +
      'with intervals: "Engines compared", transfer rows.',
    head: ['database', 'agents', 'committed/s', 'conflicts', 'failed', 'verified', 'restored'],
    rows,
    chart: barChart(
      'transfers',
      'Committed transfers per second',
      f.config.agents.map((a) => `${a} agent${a === 1 ? '' : 's'}`),
      { label: 'transfers/s' },
      targets.map((t) => ({
        label: t.label,
        color: colorOf(targets, t.label),
        values: values.get(t.label)!,
        intervals: ranges.get(t.label)!,
      })),
    ),
    commands: commandsOf([f]),
  };
}
