import { sessionSection as sessionTable } from '../../report.js';
import type { Context } from '../context.js';
import type { ReportSection, Table } from '../types.js';

/**
 * Sessions: per session workload (and any step where the server refused a session or ended one
 * its client then started again), sessions per second, refused and re-initialized, as the
 * terminal report shows them. Numbers carry their value for sorting.
 */
export function sessionsSection(ctx: Context): ReportSection | undefined {
  const rows: Table['rows'] = [];
  let head: string[] = [];
  ctx.groups.forEach((groups, run) => {
    const section = sessionTable(groups);
    head = section.head;
    for (const row of section.rows) {
      const [target = '', ...rest] = row;
      rows.push({
        cells: [
          ctx.name(run, target),
          ...rest.map((text, i) =>
            i >= 2 && /^[\d,.]+$/.test(text) ? { text, value: Number(text.replaceAll(',', '')) } : text,
          ),
        ],
      });
    }
  });
  if (rows.length === 0) return undefined;
  return {
    id: 'sessions',
    title: 'Sessions',
    note:
      "A session workload's operation is a whole session. Refused: HTTP 503. Re-initialized: a session the server " +
      'ended (404), started again by the client and the call retried (not an error unless the retry failed).',
    blocks: [{ table: { head, rows } }],
  };
}
