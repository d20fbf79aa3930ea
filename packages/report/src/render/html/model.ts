import { byTrace, rowsNamedBy } from '../replay.js';
import { type ChartSpec, dropEmptySeries } from './charts.js';
import { context } from './context.js';
import { agreementSection } from './sections/agreement.js';
import { commitsSection } from './sections/commits.js';
import { decompositionSection } from './sections/decomposition.js';
import { errorSection } from './sections/errors.js';
import { indexSection } from './sections/indexes.js';
import { operationsSection } from './sections/operations.js';
import { overrunSection } from './sections/overrun.js';
import { replaySection } from './sections/replay.js';
import { scalingSection } from './sections/scaling.js';
import { serversSection } from './sections/servers.js';
import { sessionInitSection } from './sections/session-init.js';
import { sessionsSection } from './sections/sessions.js';
import { spectrumSection } from './sections/spectrum.js';
import { runSummary } from './sections/summary.js';
import { timelineSection } from './sections/timeline.js';
import { tokenSection } from './sections/tokens.js';
import { traceSplitSection } from './sections/trace-split.js';
import type { ReportModel, ReportSection, Run } from './types.js';

/**
 * The HTML report's content as data: every number, chart series and table cell, computed from
 * the result files alone by pure functions, one file per section under sections/. page.ts only
 * turns this into markup.
 */
export function reportModel(files: readonly Run[]): ReportModel {
  const runs = files.map((r) => ({ ...r, result: byTrace(r.result) }));
  const ctx = context(runs);
  const sections = [
    spectrumSection(ctx),
    scalingSection(ctx),
    serversSection(ctx),
    operationsSection(ctx),
    overrunSection(ctx),
    commitsSection(ctx),
    agreementSection(ctx),
    timelineSection(ctx),
    indexSection(ctx),
    sessionInitSection(ctx),
    sessionsSection(ctx),
    replaySection(ctx),
    decompositionSection(runs),
    traceSplitSection(ctx),
    tokenSection(ctx),
    errorSection(ctx),
  ]
    .filter((s): s is ReportSection => s !== undefined && s.blocks.length > 0)
    .map((s) => ({ ...s, blocks: s.blocks.map((b) => (b.chart ? { ...b, chart: dropEmptySeries(b.chart) } : b)) }));
  const named = runs.every((r) => rowsNamedBy(r.result) === 'trace') ? 'trace' : 'target';
  return { runs: runs.map(runSummary), sections: uniqueChartIds(sections.map((s) => namedBy(s, named))) };
}

/** A section's tables with their first column named for what their rows are (a replay's: its trace). */
const namedBy = (s: ReportSection, named: string): ReportSection => ({
  ...s,
  blocks: s.blocks.map((b) =>
    b.table.head[0] === 'target' ? { ...b, table: { ...b.table, head: [named, ...b.table.head.slice(1)] } } : b,
  ),
});

/**
 * Chart ids are slugs of free text (run labels, target rounds), and slugs of different texts can
 * be equal (`Main` and `main`, `run (2)` and `run-2`, any two non-ASCII labels): a second chart
 * with the same id would draw into the first one's slot. A repeat gets its chart's position on
 * the page, so no two ids are equal; the first keeps its readable id.
 */
export function uniqueChartIds(sections: readonly ReportSection[]): ReportSection[] {
  const taken = new Set<string>();
  let position = 0;
  const unique = (chart: ChartSpec): ChartSpec => {
    position++;
    const base = chart.id || 'chart';
    let id = base;
    for (let n = position; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return id === chart.id ? chart : { ...chart, id };
  };
  return sections.map((s) => ({ ...s, blocks: s.blocks.map((b) => (b.chart ? { ...b, chart: unique(b.chart) } : b)) }));
}
