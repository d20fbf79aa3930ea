import type { ResultFile } from '@mcp-db-bench/contract';
import { color } from '../charts.js';
import type { ReportSection, Run } from '../types.js';

/**
 * The run's token cost per target (`tokens`, from the untimed check pass): the tool list, the
 * whole session start, and each workload's median answer, as tokens of the counting tokenizer.
 */
export function tokenRecords(result: ResultFile): { target: string; counts: Record<string, number> }[] {
  return (result.tokens ?? []).map((t) => ({
    target: t.target,
    counts: {
      'tools/list': t.toolsList.tokens,
      'session start': t.sessionStart.tokens,
      ...Object.fromEntries(t.calls.map((c) => [`${c.workload} p50`, c.tokens.p50])),
    },
  }));
}

export function tokenSection(runs: readonly Run[]): ReportSection | undefined {
  const records = runs.flatMap((run) =>
    tokenRecords(run.result).map((t) => ({ ...t, target: runs.length > 1 ? `${run.label}: ${t.target}` : t.target })),
  );
  if (!records.length) return undefined;
  const fields = [...new Set(records.flatMap((r) => Object.keys(r.counts)))];
  return {
    id: 'tokens',
    title: 'Token cost',
    note:
      `Tokens an agent’s model reads, per target ` +
      `(${runs.find((r) => r.result.tokens?.length)?.result.tokens?.[0]?.tokenizer ?? 'tokenizer'}; it approximates ` +
      `the host model’s): the tool list, the whole session start and each workload’s median answer.`,
    blocks: [
      {
        chart: {
          id: 'tokens',
          title: 'tokens per target',
          x: { label: 'target', ticks: records.map((r, i) => ({ value: i, label: r.target })) },
          axes: [{ scale: 'tokens', label: 'tokens' }],
          series: fields.map((f, i) => ({ label: f, scale: 'tokens', color: color(i), bars: true })),
          data: [records.map((_, i) => i), ...fields.map((f) => records.map((r) => r.counts[f] ?? null))],
        },
        table: {
          head: ['target', ...fields],
          rows: records.map((r) => ({
            cells: [
              r.target,
              ...fields.map((f) =>
                r.counts[f] === undefined ? '–' : { text: r.counts[f].toLocaleString('en-US'), value: r.counts[f] },
              ),
            ],
          })),
        },
      },
    ],
  };
}
