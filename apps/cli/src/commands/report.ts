import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { examples, formatOption, type ReportFormat } from '../options.js';
import { htmlReport, type Run } from '../render/html/index.js';
import { reportHeader, reportSections } from '../render/report.js';
import { toMarkdown, toTerminal } from '../render/table.js';

interface ReportFlags {
  format: ReportFormat;
  label: string[];
  output?: string;
}

export function reportCommand(): Command {
  return new Command('report')
    .description('render result files written by run --out (or run --format json); several are shown together, overlaid in html')
    .argument('<file...>', 'result files (JSON)')
    .addOption(formatOption('table, markdown, json (the result files, checked) or html (one self-contained page with charts)', ['table', 'markdown', 'json', 'html']))
    .addOption(new Option('--label <name>', 'name of a file\'s run in the report, once per file in order').argParser(collect).default([], "each file's name"))
    .addOption(new Option('-o, --output <file>', 'write to this file instead of stdout'))
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench report result.json',
        'mcp-db-bench report result.json --format markdown > RESULTS.md',
        'mcp-db-bench report result.json --format html -o report.html',
        'mcp-db-bench report main.json branch.json --label main --label branch --format html -o report.html',
      ),
    )
    .action((files: string[], flags: ReportFlags) => {
      const runs = readRuns(files, flags.label);
      const text = render(runs, flags.format);
      if (flags.output) writeFileSync(flags.output, text);
      else process.stdout.write(text);
    });
}

const collect = (value: string, previous: string[]) => [...previous, value];

function render(runs: readonly Run[], format: ReportFormat): string {
  if (format === 'html') return htmlReport(runs);
  if (format === 'json') {
    const [only] = runs;
    return `${JSON.stringify(runs.length === 1 ? only!.result : runs.map((r) => ({ label: r.label, result: r.result })), null, 2)}\n`;
  }
  return runs
    .map(({ label, result }) => {
      const sections = reportSections(result);
      const heading = runs.length > 1 ? (format === 'markdown' ? `## ${label}\n\n` : `== ${label} ==\n`) : '';
      return `${heading}${reportHeader(result)}\n\n${format === 'markdown' ? toMarkdown(sections) : toTerminal(sections)}`;
    })
    .join('\n');
}

/** The files' results with their labels: given ones in order, else the file names, made unique. */
export function readRuns(files: readonly string[], labels: readonly string[] = []): Run[] {
  if (labels.length > files.length) throw new UsageError(`${labels.length} labels for ${files.length} file(s): give --label once per file, in the files' order`);
  const taken = new Set<string>();
  return files.map((file, i) => {
    let label = labels[i] ?? basename(file).replace(/\.json$/i, '');
    for (let n = 2; taken.has(label); n++) label = `${labels[i] ?? basename(file).replace(/\.json$/i, '')} (${n})`;
    taken.add(label);
    return { label, result: readResultFile(file) };
  });
}

/** A result file, or one line naming the file and what is wrong with it. */
export function readResultFile(file: string): ResultFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new Error(`cannot read the result file ${file}: ${why}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON (${(error as Error).message}): is it a result file written by run --out?`);
  }
  const parsed = resultFile.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`${file} is not an mcp-db-bench result file: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}
