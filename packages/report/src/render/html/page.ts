import { uplotAssets } from './assets.js';
import type { ChartSpec } from './charts.js';
import { runtimeScript } from './runtime.js';
import type { Block, Cell, ReportModel, ReportSection, RunSummary, Table } from './types.js';

/**
 * One self-contained HTML file: the model's tables as markup, its charts as JSON, uPlot and
 * the runtime inlined, so it opens offline and can be attached to an issue. Exact numbers
 * ride along as data-value (and the summary's as data-summary) for tools and tests.
 */
export function htmlPage(model: ReportModel, options: { title?: string } = {}): string {
  const title = options.title ?? 'mcp-db-bench report';
  const charts = model.sections.flatMap((s) => s.blocks.flatMap((b) => (b.chart ? [b.chart] : [])));
  const nav = [['summary', 'Summary'], ...model.sections.map((s) => [s.id, s.title])]
    .map(([id, t]) => `<a href="#${id}">${esc(t!)}</a>`)
    .join('');
  return htmlDocument(
    title,
    `<header><h1>${esc(title)}</h1><nav>${nav}</nav></header>\n${summarySection(model.runs)}\n${model.sections.map(section).join('\n')}`,
    charts,
  );
}

/** A page around `body`, with uPlot and the charts drawn from `charts` once it has loaded. */
export function htmlDocument(title: string, body: string, charts: readonly ChartSpec[]): string {
  const uplot = uplotAssets();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mcp-db-bench">
<title>${esc(title)}</title>
<style>${uplot.style}</style>
<style>${STYLE}</style>
</head>
<body>
${body}
<script>${uplot.script}</script>
<script type="application/json" id="chart-specs">${json(charts)}</script>
<script>${runtimeScript()}</script>
</body>
</html>
`;
}

function summarySection(runs: readonly RunSummary[]): string {
  const one = (run: RunSummary) => {
    const facts = run.facts
      .map(
        (f) =>
          `<tr><th>${esc(f.label)}</th><td data-summary="${esc(f.key)}"${f.value === undefined ? '' : ` data-value="${f.value}"`}>${esc(f.text)}</td></tr>`,
      )
      .join('');
    const list = (cls: string, lines: string[]) =>
      lines.length ? `<ul class="${cls}">${lines.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>` : '';
    return `<div class="run" data-run="${esc(run.label)}">${runs.length > 1 ? `<h3>${esc(run.label)}</h3>` : ''}<table class="facts">${facts}</table>${list('warnings', run.warnings)}${list('notes', run.notes)}</div>`;
  };
  return `<section id="summary"><h2>Summary</h2><div class="runs">${runs.map(one).join('')}</div></section>`;
}

function section(s: ReportSection): string {
  return `<section id="${esc(s.id)}"><h2>${esc(s.title)}</h2>${s.note ? `<p class="note">${esc(s.note)}</p>` : ''}${s.blocks.map(block).join('')}</section>`;
}

function block(b: Block): string {
  const chart = b.chart ? `<div class="chart" data-chart="${esc(b.chart.id)}"></div>` : '';
  return `<div class="block">${chart}<div class="numbers">${table(b.table)}</div></div>`;
}

export function table(t: Table): string {
  const head = `<tr>${t.head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr>`;
  const rows = t.rows
    .map((r) => `<tr${r.key ? ` data-key="${esc(r.key)}"` : ''}>${r.cells.map(cell).join('')}</tr>`)
    .join('');
  return `<table><thead>${head}</thead><tbody>${rows}</tbody></table>`;
}

function cell(c: Cell): string {
  // prose (a first difference, a long name) wraps; numbers and short names keep one line
  if (typeof c === 'string') return c.length > LONG ? `<td class="long">${esc(c)}</td>` : `<td>${esc(c)}</td>`;
  const value = c.value === undefined ? '' : ` data-value="${c.value}"`;
  return `<td${c.tone ? ` class="${c.tone}"` : ''}${value}>${esc(c.text)}</td>`;
}

/** Characters beyond which a text cell wraps. */
const LONG = 48;

export const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** JSON safe inside a script element. */
const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

const STYLE = `
:root { color-scheme: light; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; }
body { margin: 0 auto; padding: 0 24px 48px; max-width: 1500px; background: #fff; }
header { border-bottom: 1px solid #d0d7de; padding: 12px 0 8px; }
h1 { font-size: 20px; margin: 0 0 6px; }
nav a { margin-right: 14px; color: #0969da; text-decoration: none; font-size: 13px; }
h2 { font-size: 17px; margin: 28px 0 4px; padding-top: 4px; border-top: 1px solid #eaeef2; }
h3 { font-size: 14px; margin: 8px 0; }
.note { color: #57606a; margin: 0 0 12px; max-width: 1000px; }
.block { display: flex; flex-wrap: wrap; gap: 20px; align-items: flex-start; margin: 12px 0 24px; }
.chart { flex: 1 1 560px; min-width: 320px; max-width: 760px; }
/* a table sits beside its chart when it fits there, else below it; wider than the page, it scrolls
   inside its box, its first column kept in view */
.numbers { flex: 1 1 auto; min-width: 0; max-width: 100%; max-height: 460px; overflow: auto; }
.numbers.wide { max-height: none; }
.runs { display: flex; flex-wrap: wrap; gap: 24px; }
.run { flex: 1 1 520px; min-width: 0; }
table { border-collapse: separate; border-spacing: 0; font-size: 12.5px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eaeef2; text-align: right; white-space: nowrap; background: #fff; }
th:first-child, td:first-child { text-align: left; position: sticky; left: 0; z-index: 1; }
thead th { position: sticky; top: 0; z-index: 2; background: #f6f8fa; white-space: normal; min-width: 3.5em; vertical-align: bottom; }
thead th:first-child { z-index: 3; }
td.long { white-space: normal; min-width: 18em; text-align: left; }
td.good, .good { color: #1a7f37; font-weight: 600; }
td.bad, .bad { color: #cf222e; font-weight: 600; }
td.noise { color: #57606a; }
/* a comparison's change may take two lines rather than push its row out of the box */
td.good, td.bad, td.noise { white-space: normal; min-width: 9em; }
table.facts th { text-align: left; color: #57606a; font-weight: normal; vertical-align: top; }
table.facts td { text-align: left; white-space: normal; }
.warnings { color: #9a6700; background: #fff8c5; padding: 8px 8px 8px 28px; border-radius: 6px; }
.notes { color: #57606a; padding-left: 20px; }
.uplot { font-family: inherit; }
.u-title { font-size: 14px !important; font-weight: 600 !important; }
.u-legend { font-size: 12px; text-align: left; }
.u-legend .u-series > * { padding: 1px 3px; }
/* before the cursor is on a point: names alone, no empty values, no x entry */
.u-inline.u-live .u-series:has(> td.u-value:empty) th::after { content: ""; }
.u-legend .u-series:first-child:has(> td.u-value:empty) { display: none; }
`;
