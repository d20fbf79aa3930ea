import { int } from '../../../format.js';
import { roundLabel } from '../../groups.js';
import { MEANING } from '../colors.js';
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
  // a bar per server (of each run) that had failures, in its colour
  const rounds = ctx.groups.flatMap((groups, run) =>
    [...new Set(groups.map((g) => g.target))].map((target) => {
      const steps = ctx.runs[run]!.result.steps.filter((s) => s.target === target);
      return {
        label: ctx.name(run, target),
        color: ctx.colorOf(run, { target, indexes: null }),
        totals: kinds.map((k) => steps.reduce((n, s) => n + (s.errors[k] ?? 0), 0)),
      };
    }),
  );
  const failed = rounds.filter((r) => r.totals.some((n) => n > 0));
  ctx.groups.forEach((groups, run) => {
    for (const g of groups) {
      const counts = kinds.map((k) => g.steps.reduce((n, s) => n + (s.errors[k] ?? 0), 0));
      if (counts.some((c) => c > 0))
        rows.push({
          cells: [
            ctx.name(run, roundLabel(g)),
            g.workload,
            int(g.agents),
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
          axes: [{ scale: 'n', label: 'failed calls, lower is better' }],
          series: failed.map((r) => ({
            label: rounds.length > 1 ? r.label : 'failed calls',
            scale: 'n',
            color: rounds.length > 1 ? r.color : MEANING.bad,
            bars: true,
          })),
          data: [kinds.map((_, i) => i), ...failed.map((r) => r.totals)],
        },
        table: { head: ['target', 'workload', 'agents', ...kinds], rows },
      },
    ],
  };
}
