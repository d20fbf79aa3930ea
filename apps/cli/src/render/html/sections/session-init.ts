import { decode } from '@mcp-db-bench/agent';
import { roundLabel } from '../../progress.js';
import { color, type SeriesSpec } from '../charts.js';
import { num } from '../context.js';
import { percentiles, SPECTRUM_LEVELS, SPECTRUM_TICKS, spectrum } from '../numbers.js';
import type { ReportSection, Run, Table } from '../types.js';

export function sessionInitSection(runs: readonly Run[]): ReportSection | undefined {
  const series: SeriesSpec[] = [];
  const data: (number | null)[][] = [[...SPECTRUM_LEVELS]];
  const rows: Table['rows'] = [];
  for (const run of runs) {
    for (const s of run.result.sessionInit) {
      const name = runs.length > 1 ? `${run.label}: ${roundLabel(s)}` : roundLabel(s);
      const kinds = [
        ['cold', s.cold],
        ['warm', s.warm],
        ...(s.full ? [['full discovery', s.full] as const] : []),
      ] as const;
      for (const [kind, stats] of kinds) {
        const h = decode(stats.histogram);
        series.push({ label: `${name} ${kind}`, scale: 'ms', color: color(series.length), dash: kind === 'warm' });
        data.push(spectrum(h));
        const p = percentiles(h);
        rows.push({
          key: `${run.label}/${roundLabel(s)}/${kind}`,
          cells: [
            name,
            kind,
            { text: String(h.totalCount), value: h.totalCount },
            num(p.p50),
            num(p.p90),
            num(p.p99),
            num(p.max),
          ],
        });
      }
    }
  }
  if (!rows.length) return undefined;
  return {
    id: 'session-init',
    title: 'Session init, cold and warm',
    note:
      'A whole agent start: handshake (or discover), tools/list, list_tables and describe_table for the task’s ' +
      'tables. Cold opens a new connection each time; warm reuses one; full discovery describes every table.',
    blocks: [
      {
        chart: {
          id: 'session-init',
          title: 'session init latency by percentile',
          x: { label: 'percentile', log: 10, ticks: SPECTRUM_TICKS },
          axes: [{ scale: 'ms', label: 'ms', log: 10 }],
          series,
          data,
        },
        table: { head: ['target', 'start', 'samples', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], rows },
      },
    ],
  };
}
