import { int } from '../../../format.js';
import { roundLabel } from '../../groups.js';
import { SESSION_HEAD, sessionRows } from '../../report.js';
import { type Context, rateCell } from '../context.js';
import type { Cell, ReportSection, Table } from '../types.js';

const countCell = (n: number): Cell => ({ text: n.toLocaleString('en-US'), value: n });

/**
 * Sessions: per session workload (and any step where the server refused a session or ended one
 * its client then started again), sessions per second, refused and re-initialized: the terminal
 * report's rows (`sessionRows`), their numbers kept for sorting.
 */
export function sessionsSection(ctx: Context): ReportSection | undefined {
  const rows: Table['rows'] = ctx.groups.flatMap((groups, run) =>
    sessionRows(groups).map((r) => ({
      cells: [
        ctx.name(run, roundLabel(r.group)),
        r.group.workload,
        int(r.group.agents),
        rateCell(r.operationsPerSecond),
        countCell(r.refused),
        r.reinitialized === null ? 'not counted' : countCell(r.reinitialized),
        countCell(r.otherErrors),
      ],
    })),
  );
  if (rows.length === 0) return undefined;
  return {
    id: 'sessions',
    title: 'Sessions',
    note:
      "A session workload's operation is a whole session. Refused: HTTP 503. Re-initialized: a session the server " +
      'ended (404), started again by the client and the call retried (not an error unless the retry failed).',
    blocks: [{ table: { head: SESSION_HEAD, rows } }],
  };
}
