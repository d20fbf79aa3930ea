import type { ResultFile } from '@mcp-db-bench/contract';
import { int } from '../format.js';
import { roundLabel } from './groups.js';
import type { Section } from './table.js';

const count = int;

/**
 * Write steps against what was read back afterwards; steps of read workloads have no
 * verification.
 */
export function verificationSection(result: ResultFile): Section {
  const steps = result.steps.flatMap((s) => (s.verification ? [{ s, v: s.verification }] : []));
  return {
    title: 'Write verification: the database read back against the acknowledged writes',
    note: 'failed = definite tool errors (nothing applied, e.g. conflict); unknown = no answer (either state accepted)',
    head: [
      'target',
      'workload',
      'agents',
      'inserted',
      'updated',
      'deleted',
      'transfers',
      'failed',
      'unknown',
      'lost',
      'phantom',
      'wrong',
      'balances off',
      'money before → after',
      'verdict',
    ],
    rows: steps.map(({ s, v }) => [
      roundLabel(s),
      s.workload,
      int(s.agents),
      count(v.acknowledged.insert),
      count(v.acknowledged.update),
      count(v.acknowledged.delete),
      count(v.acknowledged.transfer),
      count(Object.values(v.failed).reduce((a, b) => a + b, 0)),
      count(v.unknown),
      count(v.lost),
      count(v.phantom),
      count(v.wrongValues),
      count(v.accounts.mismatched),
      `${v.money.before} → ${v.money.after}`,
      v.ok ? 'exact' : 'FAILED',
    ]),
  };
}
