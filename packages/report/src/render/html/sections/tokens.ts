import type { ResultFile } from '@mcp-db-bench/contract';
import { CALL_TOKEN_HEAD, callTokenRows } from '../../tokens.js';
import type { Context } from '../context.js';
import type { Block, Cell, ReportSection } from '../types.js';

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

const count = (n: number): Cell => ({ text: n.toLocaleString('en-US'), value: n });

/** Token cost: a bar per target (in its colour) for each count, and each answer beside its latency (the terminal's rows). */
export function tokenSection(ctx: Context): ReportSection | undefined {
  const records = ctx.runs.flatMap((run, r) =>
    tokenRecords(run.result).map((t) => ({
      ...t,
      name: ctx.name(r, t.target),
      color: ctx.colorOf(r, { target: t.target, indexes: null }),
    })),
  );
  if (!records.length) return undefined;
  const fields = [...new Set(records.flatMap((r) => Object.keys(r.counts)))];
  const perCall = ctx.runs.flatMap((run, r) =>
    callTokenRows(run.result).map((c) => ({
      cells: [
        c.workload,
        ctx.name(r, c.target),
        `${c.bytes.p50.toLocaleString('en-US')} / ${c.bytes.max.toLocaleString('en-US')}`,
        `${c.tokens.p50.toLocaleString('en-US')} / ${c.tokens.max.toLocaleString('en-US')}`,
        c.latencyMs === null ? '–' : { text: c.latencyMs.toFixed(c.latencyMs < 10 ? 2 : 1), value: c.latencyMs },
      ],
    })),
  );
  const blocks: Block[] = [
    {
      chart: {
        id: 'tokens',
        title: 'tokens per target',
        x: { label: 'what the model reads', ticks: fields.map((label, i) => ({ value: i, label })) },
        axes: [{ scale: 'tokens', label: 'tokens, lower is better' }],
        series: records.map((r) => ({ label: r.name, scale: 'tokens', color: r.color, bars: true })),
        data: [fields.map((_, i) => i), ...records.map((r) => fields.map((f) => r.counts[f] ?? null))],
      },
      table: {
        head: ['target', ...fields],
        rows: records.map((r) => ({
          cells: [r.name, ...fields.map((f) => (r.counts[f] === undefined ? '–' : count(r.counts[f])))],
        })),
      },
    },
    ...(perCall.length ? [{ table: { head: CALL_TOKEN_HEAD, rows: perCall } }] : []),
  ];
  return {
    id: 'tokens',
    title: 'Token cost',
    note:
      `Tokens an agent’s model reads, per target ` +
      `(tokenizer ${ctx.runs.find((r) => r.result.tokens?.length)?.result.tokens?.[0]?.tokenizer}): the tool list, the whole session start and each workload’s median answer; below, each ` +
      `answer's bytes and tokens (p50 / max of the sampled calls) beside its latency at the fewest agents.`,
    blocks,
  };
}
