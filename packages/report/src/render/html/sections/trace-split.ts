import { traceSplitSection as traceSplitTable } from '../../trace-split.js';
import type { Context } from '../context.js';
import type { Block, Cell, ReportSection } from '../types.js';

/** `run --trace-split`: the terminal report's table of where each call's time went, per run. */
export function traceSplitSection(ctx: Context): ReportSection | undefined {
  const blocks: Block[] = [];
  let note: string | undefined;
  ctx.groups.forEach((groups, run) => {
    const section = traceSplitTable(groups);
    if (section.rows.length === 0) return;
    note = section.note;
    blocks.push({
      table: {
        head: section.head,
        rows: section.rows.map(([target = '', ...rest]) => ({ cells: [ctx.name(run, target), ...rest.map(cell)] })),
      },
    });
  });
  if (blocks.length === 0) return undefined;
  return { id: 'trace-split', title: "Where each call's time went (the server's spans)", note, blocks };
}

const cell = (text: string): Cell => {
  const n = Number(text);
  return Number.isFinite(n) && text !== '' ? { text, value: n } : text;
};
