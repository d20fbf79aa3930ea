import { readFileSync } from 'node:fs';
import { resultFile } from '@mcp-db-bench/contract';
import { Command, Option } from 'commander';
import { reportHeader, reportSections } from '../render/report.js';
import { toMarkdown, toTerminal } from '../render/table.js';

export function reportCommand(): Command {
  return new Command('report')
    .description('render a result file written by run --out')
    .argument('<file>', 'result file (JSON)')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'markdown', 'json']).default('table'))
    .action((file: string, flags: { format: 'table' | 'markdown' | 'json' }) => {
      const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
      const parsed = resultFile.safeParse(raw);
      if (!parsed.success) {
        throw new Error(`${file} is not an mcp-db-bench result file: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      }
      const result = parsed.data;
      if (flags.format === 'json') return void process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      const sections = reportSections(result);
      const body = flags.format === 'markdown' ? toMarkdown(sections) : toTerminal(sections);
      process.stdout.write(`${reportHeader(result)}\n\n${body}`);
    });
}
