import { type Group, medianThroughput } from '../../report.js';
import { slug } from '../charts.js';
import { MEANING } from '../colors.js';
import { type Context, rateCell } from '../context.js';
import type { Block, ReportSection } from '../types.js';

/** Optimized against baseline calls/s for each target, workload and agent count both rounds measured. */
export function indexPairs(
  groups: readonly Group[],
): { target: string; workload: string; agents: number; baseline: number; optimized: number; speedup: number }[] {
  return groups
    .filter((g) => g.indexes === 'optimized')
    .flatMap((opt) => {
      const base = groups.find(
        (g) =>
          g.indexes === 'baseline' && g.target === opt.target && g.workload === opt.workload && g.agents === opt.agents,
      );
      if (!base) return [];
      const baseline = medianThroughput(base).median;
      const optimized = medianThroughput(opt).median;
      return [
        {
          target: opt.target,
          workload: opt.workload,
          agents: opt.agents,
          baseline,
          optimized,
          speedup: baseline > 0 ? optimized / baseline : 0,
        },
      ];
    });
}

export function indexSection(ctx: Context): ReportSection | undefined {
  const blocks = ctx.groups.flatMap((groups, run): Block[] => {
    const pairs = indexPairs(groups);
    if (!pairs.length) return [];
    const categories = pairs.map(
      (p) => `${p.workload} × ${p.agents}${new Set(pairs.map((x) => x.target)).size > 1 ? ` ${p.target}` : ''}`,
    );
    return [
      {
        chart: {
          id: slug('indexes', ctx.runs[run]!.label),
          title: ctx.name(run, 'calls/s, baseline and optimized indexes'),
          x: { label: 'workload × agents', ticks: categories.map((label, i) => ({ value: i, label })) },
          axes: [{ scale: 'rate', label: 'calls/s, higher is better' }],
          series: [
            { label: 'baseline', scale: 'rate', color: MEANING.baseline, bars: true },
            { label: 'optimized', scale: 'rate', color: MEANING.optimized, bars: true },
          ],
          data: [categories.map((_, i) => i), pairs.map((p) => p.baseline), pairs.map((p) => p.optimized)],
        },
        table: {
          head: ['target', 'workload', 'agents', 'baseline calls/s', 'optimized calls/s', 'speed-up'],
          rows: pairs.map((p) => ({
            cells: [
              p.target,
              p.workload,
              String(p.agents),
              rateCell(p.baseline),
              rateCell(p.optimized),
              { text: `${p.speedup.toFixed(1)}×`, value: p.speedup },
            ],
          })),
        },
      },
    ];
  });
  return {
    id: 'indexes',
    title: 'Baseline versus optimized indexes',
    note: 'Baseline has primary keys only; optimized adds foreign-key and filter-column indexes.',
    blocks,
  };
}
