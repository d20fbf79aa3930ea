import { type SeedEvents, seedInWorker } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/engines';
import { int, toMarkdown } from '@mcp-db-bench/report';
import cliProgress from 'cli-progress';
import { Command } from 'commander';
import { onDatabase } from '../errors.js';
import {
  dbOption,
  examples,
  type Format,
  formatOption,
  indexesOption,
  jsonAlias,
  rowsAtScaleOne,
  scaleOption,
  seedOption,
} from '../options.js';
import { renderSeedSummary, seedSummarySections } from '../render/seed-summary.js';

interface SeedFlags {
  db: string;
  scale: number;
  seed: number;
  indexes: 'baseline' | 'optimized';
  force?: boolean;
  format: Format;
}

export function seedCommand(): Command {
  return new Command('seed')
    .description('generate the e-commerce dataset and bulk-load it into a database')
    .addOption(dbOption())
    .addOption(scaleOption())
    .addOption(seedOption())
    .addOption(indexesOption())
    .option('--force', 'drop and reload the dataset tables an earlier seed made (never a table it did not make)')
    .addOption(formatOption('the seed report on stdout'))
    .addOption(jsonAlias())
    .addHelpText(
      'after',
      `\nTables and rows at scale 1 (payments is filled by the write workloads):\n${rowsAtScaleOne()}.\n` +
        examples(
          'mcp-db-bench seed',
          'mcp-db-bench seed --db postgres://bench:bench@127.0.0.1:5432/bench --scale 1',
          'MCP_DB_BENCH_DB=sqlite:shop.db mcp-db-bench seed --force --indexes baseline',
        ),
    )
    .action(async (flags: SeedFlags) => {
      process.stderr.write(`seeding ${redactUrl(flags.db)} at scale ${flags.scale} (seed ${flags.seed})\n`);
      const report = await onDatabase(flags.db, () =>
        seedInWorker(
          { url: flags.db, scale: flags.scale, seed: flags.seed, indexes: flags.indexes, force: flags.force ?? false },
          process.stderr.isTTY ? barProgress() : lineProgress(),
        ),
      );
      process.stdout.write(
        flags.format === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : flags.format === 'markdown'
            ? toMarkdown(seedSummarySections(report))
            : renderSeedSummary(report),
      );
      if (!report.checks.ok) process.exitCode = 1;
    });
}

/** On a terminal: one bar per table. */
function barProgress(): SeedEvents {
  let bar: cliProgress.SingleBar | undefined;
  return {
    phase: (name) => process.stderr.write(`${name}\n`),
    tableStart(table, rows) {
      bar = new cliProgress.SingleBar(
        {
          format: `${table.padEnd(12)} {bar} {percentage}% | {value}/{total} rows | {eta_formatted}`,
          stream: process.stderr,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(rows, 0);
    },
    progress: (_table, rows) => bar?.increment(rows),
    tableDone: () => bar?.stop(),
  };
}

/** Elsewhere (CI, pipes): a plain line per table. */
function lineProgress(): SeedEvents {
  return {
    phase: (name) => process.stderr.write(`${name}\n`),
    tableDone: (t) =>
      process.stderr.write(
        `${t.name}: ${int(t.rows)} rows in ${t.seconds.toFixed(2)} s (${int(t.rows / t.seconds)} rows/s)\n`,
      ),
  };
}
