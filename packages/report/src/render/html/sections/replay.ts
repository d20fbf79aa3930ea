import { replaySections } from '../../replay.js';
import type { Context } from '../context.js';
import type { Block, Cell, ReportSection } from '../types.js';

/**
 * `run --replay`: the terminal report's two replay tables (latency per method and tool, and where
 * the session time went), per run. Numbers carry their value for sorting.
 */
export function replaySection(ctx: Context): ReportSection | undefined {
  const blocks: Block[] = [];
  ctx.runs.forEach((run, i) => {
    for (const section of replaySections(run.result)) {
      if (section.rows.length === 0) continue;
      blocks.push({
        table: {
          head: section.head,
          rows: section.rows.map(([step = '', ...rest]) => ({
            cells: [ctx.name(i, step), ...rest.map(cell)],
          })),
        },
      });
    }
  });
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

const cell = (text: string): Cell => {
  const n = Number(text.replace(/%$/, '').replaceAll(',', ''));
  return /^[\d,.]+%?$/.test(text) && Number.isFinite(n) ? { text, value: n } : text;
};
