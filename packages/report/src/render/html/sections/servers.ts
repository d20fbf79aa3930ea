import { int } from '../../../format.js';
import { judged } from '../../../verdicts.js';
import { ratioLegend, sentence } from '../../legend.js';
import { serverComparison } from '../../ratios.js';
import { slug } from '../charts.js';
import { type Context, num, rateCell, ratioCell } from '../context.js';
import type { Block, ReportSection } from '../types.js';

/**
 * A run of several servers side by side (`run --target … --target …`, or several engines): each
 * workload and agent count, each server's calls/s (bars in its colour) and p50, the rows of the
 * terminal's "Servers compared" (`serverComparison`).
 */
export function serversSection(ctx: Context): ReportSection | undefined {
  let what: 'Engines' | 'Servers' | undefined;
  const legends = new Set<string>();
  const blocks = ctx.groups.flatMap((groups, run): Block[] => {
    const c = serverComparison(groups, ctx.runs[run]!.result);
    if (!c) return [];
    what = what && what !== c.what ? 'Servers' : c.what;
    const j = judged(ctx.runs[run]!.result);
    legends.add(ratioLegend(j, ctx.runs[run]!.result.config.iterations));
    // each target after the first: its rate against the first's (a peer's: ours on its database), as the terminal writes it
    const others = c.targets.slice(1);
    const categories = c.rows.map((r) => `${r.workload} × ${int(r.agents)}`);
    return [
      {
        chart: {
          id: slug('servers', ctx.runs[run]!.label),
          title: ctx.name(run, `${c.what.toLowerCase()} compared, calls/s (${c.indexes ?? 'as found'} indexes)`),
          x: { label: 'workload × agents', ticks: categories.map((label, i) => ({ value: i, label })) },
          axes: [{ scale: 'rate', label: 'calls/s, higher is better' }],
          series: c.targets.map((target) => ({
            label: ctx.name(run, target),
            scale: 'rate',
            color: ctx.colorOf(run, { target, indexes: null }),
            bars: true,
          })),
          data: [categories.map((_, i) => i), ...c.targets.map((_, t) => c.rows.map((r) => r.cells[t]?.rate ?? null))],
        },
        table: {
          head: [
            'workload',
            'agents',
            ...c.targets.flatMap((t) => [`${t} calls/s`, `${t} p50 ms`]),
            ...others.map((t, i) => `${t} against ${c.against[i + 1]}`),
          ],
          rows: c.rows.map((r) => ({
            cells: [
              r.workload,
              int(r.agents),
              ...r.cells.flatMap((x) => (x ? [rateCell(x.rate), num(x.p50Ms)] : ['not measured', 'not measured'])),
              ...r.cells.slice(1).map((x) => ratioCell(j.of(x?.comparison))),
            ],
          })),
        },
      },
    ];
  });
  if (!blocks.length) return undefined;
  return {
    id: 'servers',
    // the terminal's name for the same table
    title: `${what ?? 'Servers'} compared`,
    note:
      'Each server (or engine) of a run on the same workloads and agent counts: calls/s (the median of iterations, ' +
      'transfers: committed/s), p50 of the last index set measured, and each against the first (a server run --peer ' +
      'started: against ours on the same database), paired per ' +
      `iteration. Each server keeps its colour on every chart. ${[...legends].map(sentence).join(' ')}`,
    blocks,
  };
}
