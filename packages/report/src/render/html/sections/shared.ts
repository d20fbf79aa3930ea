import type { ResultFile } from '@mcp-db-bench/contract';
import type { Section } from '../../table.js';
import type { Context } from '../context.js';
import type { Block, Cell, ReportSection } from '../types.js';

/**
 * A table the terminal and Markdown reports build (`build`, one of their pure section functions),
 * as an HTML section: a block per run that has rows, its first column named by the run when
 * several share the page, its numbers carrying their value for sorting.
 */
export function sharedSection(
  ctx: Context,
  id: string,
  build: (result: ResultFile) => Section,
): ReportSection | undefined {
  const sections = ctx.runs.map((run) => build(run.result));
  const blocks: Block[] = sections.flatMap((section, run) =>
    section.rows.length ? [sharedBlock(ctx, run, section)] : [],
  );
  if (blocks.length === 0) return undefined;
  const { title, note } = sections[0]!;
  return { id, title, ...(note ? { note } : {}), blocks };
}

/** One run's rows of a terminal table as an HTML table (an empty first cell continues the row above). */
export function sharedBlock(ctx: Context, run: number, section: Section): Block {
  return {
    table: {
      head: section.head,
      rows: section.rows.map(([first = '', ...rest]) => ({
        cells: [first && ctx.name(run, first), ...rest.map(numberCell)],
      })),
    },
  };
}

/** A cell of a terminal table: a number (grouped, or a percentage) carries its value; other text stays text. */
export const numberCell = (text: string): Cell => {
  const n = Number(text.replace(/%$/, '').replaceAll(',', ''));
  return /^-?[\d,]*\.?\d+%?$/.test(text) && Number.isFinite(n) ? { text, value: n } : text;
};
