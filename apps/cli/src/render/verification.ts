import type { WriteVerification } from '@mcp-db-bench/agent';
import type { ResultFile } from '@mcp-db-bench/contract';
import type { Section } from './table.js';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Write steps against what was read back afterwards. `verification` rides on the step in the
 * result file (see MeasuredStep); steps of read workloads have none.
 */
export function verificationSection(result: ResultFile): Section {
  const steps = result.steps.flatMap((s) => {
    const v = (s as { verification?: WriteVerification }).verification;
    return v ? [{ s, v }] : [];
  });
  return {
    title: 'Write verification: the database read back against the acknowledged writes',
    note: 'failed = definite tool errors (nothing applied, e.g. conflict); unknown = no answer (either state accepted)',
    head: ['target', 'workload', 'agents', 'inserted', 'updated', 'deleted', 'transfers', 'failed', 'unknown', 'lost', 'phantom', 'wrong', 'balances off', 'money before → after', 'verdict'],
    rows: steps.map(({ s, v }) => [
      s.indexes ? `${s.target} (${s.indexes})` : s.target,
      s.workload,
      String(s.agents),
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

/**
 * The contract's result schema does not know `verification` yet, so parsing a saved file drops
 * it; this puts each step's back from the raw JSON (steps keep their order).
 */
export function keepVerification(result: ResultFile, raw: unknown): ResultFile {
  const steps = (raw as { steps?: { verification?: unknown }[] }).steps ?? [];
  result.steps.forEach((s, i) => {
    const v = steps[i]?.verification as WriteVerification | undefined;
    if (typeof v?.ok === 'boolean' && typeof v.marker === 'string') Object.assign(s, { verification: v });
  });
  return result;
}
