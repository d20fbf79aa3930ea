import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { int, rate, roundLabel } from './numbers.js';
import type { Section } from './table.js';

/**
 * A transfer is several calls (lookups, then one `transact`): its headline is the transactions
 * committed per second and the conflicts they met, not calls/s. Iterations of a step are added up.
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
    const seconds = steps.reduce((a, s) => a + s.durationMs, 0) / 1000;
    const add = (f: (c: NonNullable<StepResult['commits']>) => number) => steps.reduce((a, s) => a + f(s.commits!), 0);
    const committed = add((c) => c.committed);
    const conflicts = add((c) => c.conflicts);
    const calls = steps.reduce((a, s) => a + s.calls, 0);
    const tried = committed + conflicts;
    return [
      roundLabel(first),
      first.workload,
      int(first.agents),
      seconds > 0 ? rate(committed / seconds) : '–',
      int(committed),
      int(conflicts),
      tried > 0 ? `${((conflicts / tried) * 100).toFixed(1)}%` : '–',
      int(add((c) => c.failed)),
      seconds > 0 ? rate(calls / seconds) : '–',
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
