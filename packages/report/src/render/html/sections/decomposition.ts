import { pct } from '../../../format.js';
import { decode, summary } from '../../../histogram.js';
import { MEANING } from '../colors.js';
import { num } from '../context.js';
import type { ReportSection, Run } from '../types.js';

export function decompositionSection(runs: readonly Run[]): ReportSection | undefined {
  const items = runs.flatMap((run) => run.result.decomposition.map((d) => ({ run, d })));
  if (!items.length) return undefined;
  const p50 = (stats: { histogram: string }) => summary(decode(stats.histogram)).p50 / 1000;
  const categories = items.map(({ run, d }) => `${runs.length > 1 ? `${run.label}: ` : ''}${d.target} ${d.operation}`);
  const values = items.map(({ d }) => ({ raw: p50(d.raw), echo: p50(d.echo), full: p50(d.full) }));
  return {
    id: 'decomposition',
    title: 'Where the time goes',
    note:
      'One agent, p50. raw driver: the same statement through the database driver, no MCP; echo: an MCP tool call ' +
      'that skips the database (the protocol alone); full call: the tool call end to end.',
    blocks: [
      {
        chart: {
          id: 'decomposition',
          title: 'p50 ms: database alone, protocol alone, full call',
          x: { label: 'operation', ticks: categories.map((label, i) => ({ value: i, label })) },
          axes: [{ scale: 'ms', label: 'p50 ms, lower is better' }],
          series: [
            { label: 'raw driver', scale: 'ms', color: MEANING.raw, bars: true },
            { label: 'echo (protocol)', scale: 'ms', color: MEANING.echo, bars: true },
            { label: 'full call', scale: 'ms', color: MEANING.full, bars: true },
          ],
          data: [
            categories.map((_, i) => i),
            values.map((v) => v.raw),
            values.map((v) => v.echo),
            values.map((v) => v.full),
          ],
        },
        table: {
          head: ['operation', 'raw driver ms', 'echo ms', 'full call ms', 'protocol share', 'database share'],
          rows: values.map((v, i) => ({
            cells: [categories[i]!, num(v.raw), num(v.echo), num(v.full), pct(v.echo / v.full), pct(v.raw / v.full)],
          })),
        },
      },
    ],
  };
}
