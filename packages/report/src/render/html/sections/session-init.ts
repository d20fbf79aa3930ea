import { int } from '../../../format.js';
import { decode } from '../../../histogram.js';
import { roundLabel } from '../../groups.js';
import type { SeriesSpec } from '../charts.js';
import { shade } from '../colors.js';
import { type Context, num } from '../context.js';
import { percentiles, SPECTRUM_LEVELS, SPECTRUM_TICKS, spectrum } from '../percentiles.js';
import type { ReportSection, Table } from '../types.js';

export function sessionInitSection(ctx: Context): ReportSection | undefined {
  const series: SeriesSpec[] = [];
  const data: (number | null)[][] = [[...SPECTRUM_LEVELS]];
  const rows: Table['rows'] = [];
  ctx.runs.forEach((run, r) => {
    for (const s of run.result.sessionInit) {
      const name = ctx.name(r, roundLabel(s));
      // the first pass, on a server just started, and the last pass's, on the same server after the run
      const kinds = [
        ['cold', s.cold],
        ['warm', s.warm],
        ...(s.full ? [['full discovery', s.full] as const] : []),
        ...(s.later ? [['cold, later', s.later.cold] as const, ['warm, later', s.later.warm] as const] : []),
      ] as const;
      for (const [kind, stats] of kinds) {
        const h = decode(stats.histogram);
        // the round's colour: warm dashed, full discovery and the later pass paler
        const pale = kind === 'full discovery' || kind.endsWith('later');
        const color = pale ? shade(ctx.colorOf(r, s), 0, 2) : ctx.colorOf(r, s);
        series.push({ label: `${name} ${kind}`, scale: 'ms', color, dash: kind.startsWith('warm') });
        data.push(spectrum(h));
        const p = percentiles(h);
        rows.push({
          key: `${run.label}/${roundLabel(s)}/${kind}`,
          cells: [
            name,
            kind,
            { text: int(h.totalCount), value: h.totalCount },
            num(p.p50),
            num(p.p90),
            num(p.p99),
            num(p.max),
          ],
        });
      }
    }
  });
  if (!rows.length) return undefined;
  return {
    id: 'session-init',
    title: 'Session init, cold and warm',
    note:
      'A whole agent start: handshake (or discover), tools/list, list_tables and describe_table for the task’s ' +
      'tables. Cold opens a new connection each time; warm reuses one; full discovery (paler) describes every table. ' +
      'Timed in the first pass, on a server just started, and (later, paler) again in the last pass on the same ' +
      'server, its code paths compiled: the first is typically 1.5 to 2 times slower.',
    blocks: [
      {
        chart: {
          id: 'session-init',
          title: 'session init latency by percentile',
          x: { label: 'percentile', log: 10, ticks: SPECTRUM_TICKS },
          axes: [{ scale: 'ms', label: 'ms, lower is better', log: 10 }],
          series,
          data,
        },
        table: { head: ['target', 'start', 'samples', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], rows },
      },
    ],
  };
}
