import { int } from '../../numbers.js';
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
    const targets = [...new Set(pairs.map((p) => p.target))];
    const categories = pairs.map((p) => `${p.workload} × ${int(p.agents)}${targets.length > 1 ? ` ${p.target}` : ''}`);
    // with one target the meaning's colours; with several, each target's own, its baseline paler
    const color = (target: string, indexes: 'baseline' | 'optimized') =>
      targets.length > 1 ? ctx.colorOf(run, { target, indexes }) : MEANING[indexes];
    const profiles = ['baseline', 'optimized'] as const;
    return [
      {
        chart: {
          id: slug('indexes', ctx.runs[run]!.label),
          title: ctx.name(run, 'calls/s, baseline and optimized indexes'),
          x: { label: 'workload × agents', ticks: categories.map((label, i) => ({ value: i, label })) },
          // a log axis: a 25 calls/s baseline beside a 3,000 calls/s optimized round still shows
          axes: [{ scale: 'rate', label: 'calls/s (log), higher is better', log: 10 }],
          series: targets.flatMap((target) =>
            profiles.map((indexes) => ({
              label: targets.length > 1 ? `${target} ${indexes}` : indexes,
              scale: 'rate',
              color: color(target, indexes),
              bars: true,
            })),
          ),
          data: [
            categories.map((_, i) => i),
            ...targets.flatMap((target) =>
              profiles.map((indexes) => pairs.map((p) => (p.target === target ? p[indexes] : null))),
            ),
          ],
        },
        table: {
          head: ['target', 'workload', 'agents', 'baseline calls/s', 'optimized calls/s', 'speed-up'],
          rows: pairs.map((p) => ({
            cells: [
              p.target,
              p.workload,
              int(p.agents),
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
