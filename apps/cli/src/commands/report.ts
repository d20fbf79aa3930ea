import { readFileSync } from 'node:fs';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { Command } from 'commander';
import { examples, type Format, formatOption } from '../options.js';
import { reportHeader, reportSections } from '../render/report.js';
import { toMarkdown, toTerminal } from '../render/table.js';

export function reportCommand(): Command {
  return new Command('report')
    .description('render a result file written by run --out (or run --format json)')
    .argument('<file>', 'result file (JSON)')
    .addOption(formatOption('output format; json prints the result file, checked'))
    .addHelpText('after', examples('mcp-db-bench report result.json', 'mcp-db-bench report result.json --format markdown > RESULTS.md'))
    .action((file: string, flags: { format: Format }) => {
      const result = readResultFile(file);
      if (flags.format === 'json') return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      const sections = reportSections(result);
      const body = flags.format === 'markdown' ? toMarkdown(sections) : toTerminal(sections);
      process.stdout.write(`${reportHeader(result)}\n\n${body}`);
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
