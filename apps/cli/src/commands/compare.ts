import { writeFileSync } from 'node:fs';
import {
  compareHtml,
  compareJson,
  compareRuns,
  compareSections,
  DEFAULT_NOISE_PCT,
  nothingShared,
  poolRuns,
  readResultFile,
  regressions,
  toMarkdown,
  toTerminal,
} from '@mcp-db-bench/report';
import { Command, Option } from 'commander';
import { checkOutputPath, examples, formatOption, outOption, outputAlias, type ReportFormat } from '../options.js';
import { parsePct } from '../parse/values.js';
import { logLine, stdoutColumns } from '../render/progress.js';

interface CompareFlags {
  noise: number;
  failOnRegression?: number;
  format: ReportFormat;
  out?: string;
  /** the old spelling of --out */
  output?: string;
}

export function compareCommand(): Command {
  return new Command('compare')
    .description(
      'compare two result files: the change in calls/s, p50 and p99 of every step, marked where it exceeds the noise',
    )
    .argument('<base>', 'result file of the reference run (JSON); several repeats of it, comma-separated, are pooled')
    .argument('<new>', 'result file of the run to judge (JSON); several, comma-separated, are pooled')
    .addOption(
      new Option('--noise <pct>', 'noise floor: a change must be larger than this to be marked')
        .default(DEFAULT_NOISE_PCT, `${DEFAULT_NOISE_PCT}%`)
        .argParser(parsePct('--noise')),
    )
    .addOption(
      new Option(
        '--fail-on-regression <pct>',
        'exit 1 when a marked change is slower than this (fewer calls/s, or a higher p50 or p99)',
      ).argParser(parsePct('--fail-on-regression')),
    )
    .addOption(
      formatOption('table, markdown (for a pull-request comment), json or html', ['table', 'markdown', 'json', 'html']),
    )
    .addOption(outOption('write to this file instead of stdout'))
    .addOption(outputAlias())
    .addHelpText(
      'after',
      '\nA change is marked (▲ faster, ▼ slower; ~ = noise) when both hold:\n' +
        '  1. |new − base| / base is above the noise floor (--noise, default 5%);\n' +
        "  2. the min–max ranges of the two runs' per-iteration values do not overlap\n" +
        '     (run --iterations 3 or more on both sides for this to mean something; with one\n' +
        "     iteration a side's range is its single value, and rule 1 alone decides).\n" +
        'Several files a side (a.json,b.json) pool their iterations: run base and new in turn, a few\n' +
        "times each, so the machine's drift between runs lands in both sides' ranges.\n" +
        'Steps are matched by target, index set, workload and agent count.\n' +
        'Exit codes: 0 done, 1 a marked slowdown larger than --fail-on-regression, runs that share no step, or a failure,\n' +
        '2 a usage error. A side with one iteration is warned about: it cannot measure its noise.\n' +
        examples(
          'mcp-db-bench compare main.json branch.json',
          'mcp-db-bench compare main.json branch.json --format markdown > comment.md',
          'mcp-db-bench compare main.json branch.json --noise 10 --fail-on-regression 15',
          'mcp-db-bench compare base-1.json,base-2.json,base-3.json new-1.json,new-2.json,new-3.json --noise 10 --fail-on-regression 15',
        ),
    )
    .action((baseFile: string, newFile: string, flags: CompareFlags) => {
      checkOutputPath('--out', flags.out ?? flags.output);
      const read = (files: string) =>
        poolRuns(
          files
            .split(',')
            .filter(Boolean)
            .map((name) => ({ name, result: readResultFile(name) })),
        );
      const [base, next] = [read(baseFile), read(newFile)];
      const comparison = compareRuns(base, next, { noisePct: flags.noise });
      // A gate must not pass on nothing: runs with no step in common are a failure, not "0 changes".
      const empty = nothingShared(comparison, base, next);
      if (empty) throw new Error(empty);
      for (const caution of comparison.cautions) logLine(`caution: ${caution}`);
      const files = { base: baseFile, next: newFile };
      const text =
        flags.format === 'json'
          ? compareJson(comparison, files, flags.failOnRegression)
          : flags.format === 'html'
            ? compareHtml(comparison, files)
            : flags.format === 'markdown'
              ? `## mcp-db-bench compare: ${baseFile} → ${newFile}\n\n${toMarkdown(compareSections(comparison, true))}`
              : `mcp-db-bench compare: ${baseFile} → ${newFile}\n\n${toTerminal(compareSections(comparison), (flags.out ?? flags.output) ? undefined : stdoutColumns())}`;
      const out = flags.out ?? flags.output;
      if (out) writeFileSync(out, text);
      else process.stdout.write(text);
      if (flags.failOnRegression === undefined) return;
      const slower = regressions(comparison, flags.failOnRegression);
      for (const { row, change } of slower) {
        logLine(
          `regression: ${row.target} ${row.workload} × ${row.agents}: ${change.metric} ${change.slowerPct.toFixed(1)}% slower (limit ${flags.failOnRegression}%)`,
        );
      }
      if (slower.length) process.exitCode = 1;
    });
}
