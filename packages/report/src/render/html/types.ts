import type { ResultFile } from '@mcp-db-bench/contract';
import type { ChartSpec } from './charts.js';

/** The shapes of the HTML report's content (model.ts makes it, page.ts writes it as markup). */

/** One result file and the name it goes by in the report. */
export interface Run {
  label: string;
  result: ResultFile;
  /** the file it was read from or written to, if any: the summary says how to see it whole */
  file?: string;
}

/**
 * A table cell: its text, the exact number behind it (written as data-value) where there is one,
 * and whether it reads as good or bad news (a comparison's change, coloured by its class).
 */
export type Cell = string | { text: string; value?: number; tone?: 'good' | 'bad' | 'noise' };

export interface Table {
  head: string[];
  rows: { key?: string; cells: Cell[] }[];
}

/** A chart with the numbers beside it; a block without a chart is a table alone. */
export interface Block {
  chart?: ChartSpec;
  table: Table;
}

export interface ReportSection {
  id: string;
  title: string;
  note?: string;
  blocks: Block[];
}

export interface RunSummary {
  label: string;
  /** key (data-summary), what it is, the text shown and the exact value where it is a number */
  facts: { key: string; label: string; text: string; value?: number }[];
  warnings: string[];
  /** workloads a target could not serve (never errors) */
  notes: string[];
}

export interface ReportModel {
  runs: RunSummary[];
  sections: ReportSection[];
}
