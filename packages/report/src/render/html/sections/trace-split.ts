import { traceSplitSection as traceSplitTable } from '../../trace-split.js';
import type { Context } from '../context.js';
import type { Block, ReportSection } from '../types.js';
import { sharedBlock } from './shared.js';

/** `run --trace-split`: the terminal report's table of where each call's time went, per run. */
export function traceSplitSection(ctx: Context): ReportSection | undefined {
  const sections = ctx.groups.map((groups) => traceSplitTable(groups));
  const blocks: Block[] = sections.flatMap((section, run) =>
    section.rows.length ? [sharedBlock(ctx, run, section)] : [],
  );
  if (blocks.length === 0) return undefined;
  return {
    id: 'trace-split',
    title: "Where each call's time went (the server's spans)",
    note: sections[0]!.note,
    blocks,
  };
}
