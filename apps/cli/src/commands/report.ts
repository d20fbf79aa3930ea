import { writeFileSync } from 'node:fs';
import { readRuns, renderRuns } from '@mcp-db-bench/report';
import { Command, Option } from 'commander';
import { UsageError } from '../errors.js';
import { checkOutputPath, examples, formatOption, outOption, outputAlias, type ReportFormat } from '../options.js';
import { collect } from '../parse/values.js';
import { stdoutColumns } from '../render/progress.js';

interface ReportFlags {
  format: ReportFormat;
  full?: boolean;
  label: string[];
  out?: string;
  /** the old spelling of --out */
  output?: string;
}

export function reportCommand(): Command {
  return new Command('report')
    .description(
      'render result files written by run, floor or soak --out (or --format json); several are shown together, ' +
        'overlaid in html',
    )
    .argument('<file...>', 'result files (JSON)')
    .addOption(
      formatOption(
        'table, markdown, json (the result files, checked), html (one self-contained page with charts) or ' +
          "prometheus (one file's run in the Prometheus text format, as run --prometheus writes it)",
        ['table', 'markdown', 'json', 'html', 'prometheus'],
      ),
    )
    .addOption(
      new Option('--label <name>', "name of a file's run in the report, once per file in order")
        .argParser(collect(String))
        .default([], "each file's name"),
    )
    .option('--full', 'table: every table instead of the summary that fits the terminal (markdown is always full)')
    .addOption(outOption('write to this file instead of stdout'))
    .addOption(outputAlias())
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench report result.json',
        'mcp-db-bench report result.json --full',
        'mcp-db-bench report result.json --format markdown > RESULTS.md',
        'mcp-db-bench report result.json --format html -o report.html',
        'mcp-db-bench report main.json branch.json --label main --label branch --format html -o report.html',
        'mcp-db-bench report result.json --format prometheus -o mcp_db_bench.prom',
      ),
    )
    .action((files: string[], flags: ReportFlags) => {
      if (flags.format === 'prometheus' && files.length > 1)
        throw new UsageError('--format prometheus writes one run: give one result file (one .prom file per run)');
      if (flags.label.length > files.length)
        throw new UsageError(
          `${flags.label.length} labels for ${files.length} file(s): give --label once per file, in the files' order`,
        );
      const out = flags.out ?? flags.output;
      checkOutputPath('--out', out);
      const runs = readRuns(files, flags.label);
      const text = renderRuns(runs, flags.format, out ? undefined : stdoutColumns(), flags.full);
      if (out) writeFileSync(out, text);
      else process.stdout.write(text);
    });
}
