import type { ResultFile } from '@mcp-db-bench/contract';
import {
  comparisons,
  MergeError,
  mergeShards,
  readResultFile,
  renderRuns,
  writeResultFile,
} from '@mcp-db-bench/report';
import { Command } from 'commander';
import { checkOutputPath, examples, formatOption, type ReportFormat } from '../options.js';

export function mergeCommand(): Command {
  return new Command('merge')
    .description(
      'merge the result files of a sharded run (run --shard I/N) into one, exactly: histograms added, seconds aligned on the wall clock',
    )
    .argument('<files...>', "every shard's result file (run --shard I/N --out FILE)")
    .option('-o, --out <file>', 'write the merged result file here')
    .addOption(
      formatOption(
        "on stdout: the merged run's report as a table, Markdown or HTML, or the merged result file (json)",
        ['table', 'markdown', 'json', 'html'],
      ),
    )
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench merge shard-0.json shard-1.json shard-2.json shard-3.json -o run.json',
        'mcp-db-bench merge shards/*.json --format markdown > RESULTS.md',
      ),
    )
    .action((files: string[], flags: { out?: string; format: ReportFormat }) => {
      checkOutputPath('--out', flags.out);
      const shards = files.map((name) => ({ name, result: readResultFile(name) }));
      let result: ResultFile;
      try {
        result = mergeShards(shards);
      } catch (error) {
        // exit 1, as for a file that is not a result file: the check failed on what the files hold
        if (error instanceof MergeError) throw new Error(`cannot merge: ${error.message}`);
        throw error;
      }
      // the shards' targets, paired per iteration as one process would have (shards never re-index)
      const paired = comparisons(result.steps, { targets: result.config.targets.map((t) => t.label), indexes: [] });
      if (paired.length) result.comparisons = paired;
      if (flags.out) writeResultFile(flags.out, result);
      process.stdout.write(renderRuns([{ label: 'merged', result }], flags.format));
    });
}
