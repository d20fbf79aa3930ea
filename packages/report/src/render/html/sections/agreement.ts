import { AGREEMENT_HEAD, agreementRows } from '../../tokens.js';
import type { Context } from '../context.js';
import type { ReportSection, Table } from '../types.js';

/** The same seeded calls on every server, row counts and keys compared with the first: the terminal's rows (`agreementRows`). */
export function agreementSection(ctx: Context): ReportSection | undefined {
  const rows: Table['rows'] = ctx.runs.flatMap((run, r) =>
    agreementRows(run.result).map((a) => ({
      key: `${run.label}/${a.workload}/${a.target}`,
      cells: [
        a.workload,
        ctx.name(r, a.reference),
        ctx.name(r, a.target),
        { text: a.calls.toLocaleString('en-US'), value: a.calls },
        { text: a.mismatches.toLocaleString('en-US'), value: a.mismatches },
        a.verdict,
        a.firstDifference,
      ],
    })),
  );
  if (!rows.length) return undefined;
  return {
    id: 'agreement',
    title: 'Answer agreement',
    note:
      'The same seeded calls replayed on every server, their row counts and keys compared with the first server’s: ' +
      'a fast wrong answer shows here as DISAGREE.',
    blocks: [{ table: { head: AGREEMENT_HEAD, rows } }],
  };
}
