import { goodput, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { int, median, pct, rate } from '../format.js';
import { medianRate, roundLabel } from './groups.js';
import type { Section } from './table.js';

/**
 * A transfer is several calls (lookups, then one `transact`): its headline is the transactions
 * committed per second and the conflicts they met, not calls/s. Rates are the median of the
 * iterations' (as every table's are); counts are added up.
 */
export function commitsSection(result: ResultFile): Section {
  const groups = new Map<string, StepResult[]>();
  for (const s of result.steps) {
    if (!s.commits) continue;
    const key = `${s.target}\u0000${s.indexes}\u0000${s.workload}\u0000${s.agents}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rows = [...groups.values()].map((steps) => {
    const first = steps[0]!;
    const add = (f: (c: NonNullable<StepResult['commits']>) => number) => steps.reduce((a, s) => a + f(s.commits!), 0);
    const committed = add((c) => c.committed);
    const conflicts = add((c) => c.conflicts);
    const tried = committed + conflicts;
    return [
      roundLabel(first),
      first.workload,
      int(first.agents),
      rate(medianRate(steps)),
      int(committed),
      int(conflicts),
      tried > 0 ? pct(conflicts / tried) : '–',
      int(add((c) => c.failed)),
      rate(median(steps.map(goodput))),
    ];
  });
  return {
    title: 'Transactions: committed per second, and the conflicts they met',
    note:
      'committed = acknowledged commits (e.g. transfer:commit) in the measured time; conflicts = commits answered ' +
      '`conflict` (a lost race for the money, or a deadlock still lost after the server\u2019s own retries): nothing ' +
      'applied; calls/s counts every call of the workload, lookups included',
    head: [
      'target',
      'workload',
      'agents',
      'committed/s',
      'committed',
      'conflicts',
      'conflict rate',
      'other failures',
      'calls/s',
    ],
    rows,
  };
}
