import { roundLabel } from '../../progress.js';
import { color } from '../charts.js';
import type { Context } from '../context.js';
import type { ReportSection, Table } from '../types.js';

export function errorSection(ctx: Context): ReportSection {
  const kinds = [...new Set(ctx.runs.flatMap((r) => r.result.steps.flatMap((s) => Object.keys(s.errors))))].sort();
  const note = 'Failed calls by kind (never timed as latency), per step group.';
  if (!kinds.length)
    return {
      id: 'errors',
      title: 'Errors by kind',
      note: `${note} No call failed.`,
      blocks: [{ table: { head: ['errors'], rows: [{ cells: ['none'] }] } }],
    };
  const rows: Table['rows'] = [];
  const totals = ctx.runs.map((run) => kinds.map((k) => run.result.steps.reduce((n, s) => n + (s.errors[k] ?? 0), 0)));
  ctx.groups.forEach((groups, run) => {
    for (const g of groups) {
      const counts = kinds.map((k) => g.steps.reduce((n, s) => n + (s.errors[k] ?? 0), 0));
      if (counts.some((c) => c > 0))
        rows.push({
          cells: [
            ctx.name(run, roundLabel(g)),
            g.workload,
            String(g.agents),
            ...counts.map((c) => ({ text: c.toLocaleString('en-US'), value: c })),
          ],
        });
    }
  });
  return {
    id: 'errors',
    title: 'Errors by kind',
    note,
    blocks: [
      {
        chart: {
          id: 'errors',
          title: 'failed calls by kind',
          x: { label: 'kind', ticks: kinds.map((label, i) => ({ value: i, label })) },
          axes: [{ scale: 'n', label: 'calls' }],
          series: ctx.runs.map((run, i) => ({
            label: ctx.runs.length > 1 ? run.label : 'failed calls',
            scale: 'n',
            color: color(3 + i),
            bars: true,
          })),
          data: [kinds.map((_, i) => i), ...totals],
        },
        table: { head: ['target', 'workload', 'agents', ...kinds], rows },
      },
    ],
  };
}
