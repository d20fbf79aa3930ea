import { overran, type ResultFile } from '@mcp-db-bench/contract';
import { int } from '../format.js';
import { esc, htmlDocument, table } from '../render/html/page.js';
import { ratioLegend, sentence } from '../render/legend.js';
import { type Section, toMarkdown } from '../render/table.js';
import { type Judged, judge, machineLines, withheldLines } from '../verdicts.js';
import type { Finding } from './common.js';
import { type FindingsOptions, studyFindings } from './findings.js';

const TITLE = 'mcp-db-bench study: findings';

const cellText = (c: Finding['rows'][number][number]) => (typeof c === 'string' ? c : c.text);

/**
 * How the study's ratios were judged, and what left some out: the rules (family, confidence,
 * band), the iterations each ratio took (study --budget), a busy machine, the ratios withheld,
 * and every segment's warnings.
 */
function judging(files: readonly ResultFile[], j: Judged): string[] {
  const f = files[0];
  if (!f) return [];
  const took = new Map<number, number>();
  for (const r of j.ratios) took.set(r.evidence.iterations, (took.get(r.evidence.iterations) ?? 0) + 1);
  const batch = files.find((r) => r.config.extended)?.config.extended?.batch;
  return [
    sentence(ratioLegend(j, f.config.iterations, "the study's")),
    ...(batch
      ? [
          `Iterations each ratio took (study --budget: ${int(batch)} more at a time until it settled, each look stricter): ` +
            [...took]
              .sort((a, b) => a[0] - b[0])
              .map(([n, k]) => `${int(k)} after ${int(n)}`)
              .join(', ') +
            '.',
        ]
      : []),
    ...machineLines(files, j, { quiet: true }).map(sentence),
    ...withheldLines(j).map((l, i) => (i === 0 ? `${sentence(l)}` : l.trim())),
    ...files.flatMap((r) => r.warnings.map((w) => `Warning (${r.config.workloads.join(', ')}): ${w}`)),
  ];
}

/** The dataset scale, or each database's when they hold different ones (a reused database keeps its own). */
function scaleOf(f: ResultFile): string {
  if (f.config.scale !== null) return `Scale ${f.config.scale}`;
  const held = [
    ...new Set(f.config.targets.filter((t) => !t.peer).map((t) => `${t.label} ${t.database?.scale ?? 'unknown'}`)),
  ];
  return held.length ? `Scale as each database holds it: ${held.join(', ')}` : 'Scale unknown';
}

/** What the study ran: scale, iterations, steps, and the databases as each file found them. */
function facts(files: readonly ResultFile[]): string[] {
  const f = files[0];
  if (!f) return ['No finished result file yet.'];
  const versions = [
    ...new Set(
      files.flatMap((r) => r.config.targets.map((t) => `${t.label}: ${t.database?.version ?? 'version unknown'}`)),
    ),
  ];
  return [
    `${scaleOf(f)}, seed ${f.config.seed}, ${f.config.iterations} iteration(s) of ` +
      `${f.config.durationMs / 1000} s steps after ${f.config.warmupMs / 1000} s warm-up, indexes ` +
      `${f.config.indexes.join(' and ')} alternated.`,
    `Machine: ${f.environment.cpus} × ${f.environment.cpuModel}, ${f.environment.platform}, Node.js ${f.environment.node}; ` +
      `load average (1 min) as each result file began: ${files
        .map((r) => `${r.config.workloads.join(', ')} ${r.environment.loadAverage[0]?.toFixed(1) ?? '?'}`)
        .join('; ')}. On a shared machine the load is part of the conditions: it does not slow every engine alike.`,
    ...versions,
    ...(files.some((r) => r.steps.some(overran))
      ? [
          'Some steps overran: their calls ended more than half a step after it, so they counted the calls that ' +
            'happened to end in it. Their rates read "(overran)" and their pairs give no ratio; longer steps (--duration) measure them.',
        ]
      : []),
    ...(files.some((r) => r.partial) ? ['Some result files are partial: the study was interrupted.'] : []),
  ];
}

/** The findings page: one self-contained HTML file (uPlot inlined), a chart and a table per finding. */
export function findingsHtml(
  files: readonly ResultFile[],
  earlier?: readonly ResultFile[],
  options: FindingsOptions = {},
): string {
  const j = judge(files, options);
  const findings = studyFindings(files, earlier, options, j);
  const nav = findings.map((f) => `<a href="#${f.id}">${esc(f.title)}</a>`).join('');
  const about = `<section id="about"><ul class="notes">${[...facts(files), ...judging(files, j)]
    .map((l) => `<li>${esc(l)}</li>`)
    .join('')}</ul></section>`;
  const sections = findings.map(
    (f) =>
      `<section id="${f.id}"><h2>${esc(f.title)}</h2><p class="note">${esc(f.note)}</p>` +
      `<div class="block">${f.chart ? `<div class="chart" data-chart="${f.chart.id}"></div>` : ''}` +
      `<div class="numbers wide">${table({ head: f.head, rows: f.rows.map((cells) => ({ cells })) })}</div></div>` +
      `<p class="note">Reproduce:</p>${f.commands.map((c) => `<pre class="command"><code>${esc(c)}</code></pre>`).join('')}</section>`,
  );
  return htmlDocument(
    TITLE,
    `<header><h1>${TITLE}</h1><nav>${nav}</nav></header>\n${about}\n${sections.join('\n')}\n` +
      // a rerun's row holds two verdicts with their reasons: narrower wrapped cells keep it inside 1000 px
      '<style>nav a{display:inline-block;white-space:nowrap}td.long{min-width:13em}pre.command{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;padding:6px 8px;border-radius:6px;font-size:12px;max-width:1000px}</style>',
    findings.flatMap((f) => (f.chart ? [f.chart] : [])),
  );
}

/** The same findings as Markdown: each table, then the commands that reproduce it. */
export function findingsMarkdown(
  files: readonly ResultFile[],
  earlier?: readonly ResultFile[],
  options: FindingsOptions = {},
): string {
  const j = judge(files, options);
  const parts = studyFindings(files, earlier, options, j).map((f) => {
    const section: Section = { title: f.title, note: f.note, head: f.head, rows: f.rows.map((r) => r.map(cellText)) };
    return `${toMarkdown([section])}\nReproduce:\n\n${f.commands.map((c) => `\`\`\`sh\n${c}\n\`\`\``).join('\n\n')}\n`;
  });
  return `# ${TITLE}\n\n${[...facts(files), ...judging(files, j)]
    .map((l) => `- ${l}`)
    .join('\n')}\n\n${parts.join('\n')}`;
}
