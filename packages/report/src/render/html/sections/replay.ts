import { replaySections } from '../../replay.js';
import type { Context } from '../context.js';
import type { Block, ReportSection } from '../types.js';
import { sharedBlock } from './shared.js';

/**
 * `run --replay`: the terminal report's two replay tables (latency per method and tool, and where
 * the session time went), per run. Numbers carry their value for sorting.
 */
export function replaySection(ctx: Context): ReportSection | undefined {
  const blocks: Block[] = ctx.runs.flatMap((run, i) =>
    replaySections(run.result).flatMap((section) => (section.rows.length ? [sharedBlock(ctx, i, section)] : [])),
  );
  if (blocks.length === 0) return undefined;
  return {
    id: 'replay',
    title: 'Replayed sessions',
    note:
      'Every request the recorded hosts sent, by method and tool; and the agents’ time: think (the recorded think ' +
      'time, scaled), server + network (each request from its first byte to its answer, at the client: the two are ' +
      'measured together, no server reports its own time) and the client’s own work.',
    blocks,
  };
}
