import { int } from '../../../format.js';
import { judged } from '../../../verdicts.js';
import { ratioLegend, sentence } from '../../legend.js';
import { indexRows, unitNote } from '../../ratios.js';
import { slug } from '../charts.js';
import { MEANING } from '../colors.js';
import { type Context, rateCell, ratioCell } from '../context.js';
import type { Block, ReportSection } from '../types.js';

/**
 * Each index set against the first, per target, workload and agent count: the rows of the
 * terminal's "Index speed-up" (`indexRows`), each ratio the run's comparison as it reads there.
 */
export function indexSection(ctx: Context): ReportSection | undefined {
  const notes = new Set<string>();
  const blocks = ctx.runs.flatMap((run, i): Block[] => {
    const rows = indexRows(run.result);
    if (!rows.length) return [];
    const j = judged(run.result);
    notes.add(ratioLegend(j, run.result.config.iterations));
    const units = unitNote(rows.map((r) => r.unit));
    if (units) notes.add(units);
    const perSecond = units ? 'per s' : 'calls/s';
    const [base, other] = rows[0]!.sets;
    const targets = [...new Set(rows.map((r) => r.target))];
    const categories = rows.map((r) => `${r.workload} × ${int(r.agents)}${targets.length > 1 ? ` ${r.target}` : ''}`);
    // with one target the meaning's colours; with several, each target's own, its base set paler
    const color = (target: string, indexes: string | null, side: 0 | 1) =>
      targets.length > 1 ? ctx.colorOf(i, { target, indexes }) : side ? MEANING.optimized : MEANING.baseline;
    return [
      {
        chart: {
          id: slug('indexes', run.label),
          title: ctx.name(i, `${perSecond}, ${base} and ${other} indexes`),
          x: { label: 'workload × agents', ticks: categories.map((label, value) => ({ value, label })) },
          // a log axis: a 25 calls/s baseline beside a 3,000 calls/s optimized round still shows
          axes: [{ scale: 'rate', label: `${perSecond} (log), higher is better`, log: 10 }],
          series: targets.flatMap((target) =>
            ([0, 1] as const).map((side) => ({
              label: targets.length > 1 ? `${target} ${rows[0]!.sets[side]}` : `${rows[0]!.sets[side]}`,
              scale: 'rate',
              color: color(target, rows[0]!.sets[side], side),
              bars: true,
            })),
          ),
          data: [
            categories.map((_, k) => k),
            ...targets.flatMap((target) =>
              ([0, 1] as const).map((side) => rows.map((r) => (r.target === target ? r.rates[side] : null))),
            ),
          ],
        },
        table: {
          head: ['target', 'workload', 'agents', `${base} /s`, `${other} /s`, 'speed-up', 'p50'],
          rows: rows.map((r) => ({
            cells: [
              r.target,
              r.workload,
              int(r.agents),
              rateCell(r.rates[0]),
              rateCell(r.rates[1]),
              ratioCell(j.of(r.comparison)),
              ratioCell(j.of(r.comparison, 'p50')),
            ],
          })),
        },
      },
    ];
  });
  return {
    id: 'indexes',
    title: 'Baseline versus optimized indexes',
    note: [
      'Baseline has primary keys only; optimized adds foreign-key and filter-column indexes.',
      // the legend, a sentence of its own here
      ...[...notes].map(sentence),
    ].join(' '),
    blocks,
  };
}
