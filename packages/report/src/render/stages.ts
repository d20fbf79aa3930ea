import type { LoadStage, ResultFile, StepResult } from '@mcp-db-bench/contract';
import { int, ms } from '../format.js';
import { merge, summary } from '../histogram.js';
import { roundLabel } from './groups.js';
import type { Section } from './table.js';

/** At most this many rows per staged step: longer runs group their seconds. */
export const MAX_STAGE_ROWS = 30;

/** `5s:1,2s:16`: stages as they are typed. */
export function formatStages(stages: readonly LoadStage[]): string {
  return stages.map((s) => `${formatDuration(s.durationMs)}:${s.target}`).join(',');
}

const formatDuration = (ms: number) =>
  ms > 0 && ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;

const one = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

/**
 * A staged step over time: per second (or per group of seconds on a long run), the agents
 * active (or the calls per second intended), the calls per second served, p50, p99 and errors.
 */
export function stageSections(result: ResultFile): Section[] {
  const stages = result.config.stages;
  if (!stages) return [];
  const rate = stages.kind === 'rate';
  return result.steps.map((step) => ({
    title: `${roundLabel(step)} ${step.workload} through ${rate ? 'rate' : 'agent'} stages ${formatStages(stages.stages)}${step.iteration > 1 ? ` (iteration ${step.iteration})` : ''}`,
    head: ['at', rate ? 'intended calls/s' : 'agents', 'calls/s', 'p50 ms', 'p99 ms', 'errors'],
    rows: stageRows(step, rate),
  }));
}

function stageRows(step: StepResult, rate: boolean): string[][] {
  const intervals = step.intervals;
  const group = Math.ceil(intervals.length / MAX_STAGE_ROWS);
  const rows: string[][] = [];
  for (let i = 0; i < intervals.length; i += group) {
    const slice = intervals.slice(i, i + group);
    const from = slice[0]!.atMs;
    const seconds = (Math.min(from + slice.length * 1000, step.durationMs) - from) / 1000;
    const mean = (pick: (x: (typeof slice)[number]) => number) => slice.reduce((n, x) => n + pick(x), 0) / slice.length;
    const latency = summary(merge(slice.map((x) => x.histogram)));
    const calls = slice.reduce((n, x) => n + x.calls, 0);
    rows.push([
      group > 1 ? `${from / 1000}–${from / 1000 + slice.length} s` : `${from / 1000} s`,
      rate
        ? int(slice.reduce((n, x) => n + (x.rate ?? 0), 0) / seconds)
        : one(Math.round(mean((x) => x.agents ?? 0) * 10) / 10),
      int(seconds > 0 ? calls / seconds : 0),
      latency.count ? ms(latency.p50) : '-',
      latency.count ? ms(latency.p99) : '-',
      int(slice.reduce((n, x) => n + x.errors, 0)),
    ]);
  }
  return rows;
}
