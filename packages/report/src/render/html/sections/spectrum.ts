import { int } from '../../../format.js';
import { groupHistogram, roundLabel } from '../../groups.js';
import { type SeriesSpec, slug } from '../charts.js';
import { shade } from '../colors.js';
import { type Context, num } from '../context.js';
import { percentiles, SPECTRUM_LEVELS, SPECTRUM_TICKS, spectrum } from '../percentiles.js';
import type { Block, ReportSection, Table } from '../types.js';

export function spectrumSection(ctx: Context): ReportSection {
  const blocks = ctx.workloads.map((workload): Block => {
    const series: SeriesSpec[] = [];
    const data: (number | null)[][] = [[...SPECTRUM_LEVELS]];
    const rows: Table['rows'] = [];
    ctx.groups.forEach((groups, run) => {
      const mine = groups.filter((x) => x.workload === workload);
      for (const g of mine) {
        const h = groupHistogram(g);
        const label = ctx.name(run, `${roundLabel(g)} × ${int(g.agents)}`);
        // the round's colour, paler for fewer agents
        const counts = [...new Set(mine.filter((x) => roundLabel(x) === roundLabel(g)).map((x) => x.agents))].sort(
          (a, b) => a - b,
        );
        series.push({ label, scale: 'ms', color: shade(ctx.colorOf(run, g), counts.indexOf(g.agents), counts.length) });
        data.push(spectrum(h));
        const p = percentiles(h);
        rows.push({
          key: `${ctx.runs[run]!.label}/${roundLabel(g)}/${workload}/${g.agents}`,
          cells: [
            label,
            { text: h.totalCount.toLocaleString('en-US'), value: h.totalCount },
            num(p.p50),
            num(p.p90),
            num(p.p99),
            num(p.p999),
            num(p.p9999),
            num(p.max),
          ],
        });
      }
    });
    return {
      chart: {
        id: slug('spectrum', workload),
        title: `${workload}: latency by percentile`,
        x: { label: 'percentile', log: 10, ticks: SPECTRUM_TICKS },
        axes: [{ scale: 'ms', label: 'ms, lower is better', log: 10 }],
        series,
        data,
      },
      table: { head: ['series', 'calls', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'p99.99 ms', 'max ms'], rows },
    };
  });
  return {
    id: 'latency',
    title: 'Latency percentile spectrum',
    note:
      'Each line is one workload step (all iterations merged): latency at every percentile, log scales. A round keeps its ' +
      'colour on every chart; fewer agents are paler. A line stops where its calls are too few to resolve rarer percentiles.',
    blocks,
  };
}
