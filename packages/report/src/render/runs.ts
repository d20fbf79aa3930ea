import { htmlReport, type Run } from './html/index.js';
import { overview, PIPE_COLUMNS } from './overview.js';
import { prometheusText } from './prometheus.js';
import { reportHeader, reportSections } from './report.js';
import { toMarkdown, toTerminal } from './table.js';

/** How `report` writes runs: a table, Markdown, the result files as JSON, one HTML page, or Prometheus text. */
export type ReportFormat = 'table' | 'markdown' | 'json' | 'html' | 'prometheus';

/**
 * The report of one or more runs in a format; `width`: a terminal's columns (undefined: a file or a
 * pipe). A table is the summary that fits the width unless `full` asks for every table.
 */
export function renderRuns(runs: readonly Run[], format: ReportFormat, width?: number, full = false): string {
  if (format === 'html') return htmlReport(runs);
  // one run per exposition (the caller refuses several): two would repeat every series
  if (format === 'prometheus') return prometheusText(runs[0]!.result);
  if (format === 'json') {
    const [only] = runs;
    const json = runs.length === 1 ? only!.result : runs.map((r) => ({ label: r.label, result: r.result }));
    return `${JSON.stringify(json, null, 2)}\n`;
  }
  return runs
    .map(({ label, result, file }) => {
      const sections = reportSections(result);
      const heading = runs.length > 1 ? (format === 'markdown' ? `## ${label}\n\n` : `== ${label} ==\n`) : '';
      if (format === 'table' && !full) return `${heading}${overview(result, width ?? PIPE_COLUMNS, { file })}`;
      // on a pipe the tables stay whole for tools that read them; the text keeps to PIPE_COLUMNS
      const tables = format === 'markdown' ? toMarkdown(sections) : toTerminal(sections, width, width ?? PIPE_COLUMNS);
      return `${heading}${reportHeader(result, format === 'markdown' ? undefined : (width ?? PIPE_COLUMNS))}\n\n${tables}`;
    })
    .join('\n');
}
