import { reportModel } from './model.js';
import { htmlPage } from './page.js';
import type { Run } from './types.js';

export type { Run } from './types.js';

/** The self-contained HTML report of one or more result files (several overlay their runs). */
export function htmlReport(runs: readonly Run[]): string {
  return htmlPage(reportModel(runs), {
    title: runs.length > 1 ? `mcp-db-bench report: ${runs.map((r) => r.label).join(' vs ')}` : 'mcp-db-bench report',
  });
}
