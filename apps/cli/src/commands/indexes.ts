import type { IndexSet } from '@mcp-db-bench/dataset';
import { applyIndexSet } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/engines';
import { Command, Option } from 'commander';
import { onDatabase, UsageError } from '../errors.js';
import { dbOption, examples, parseIndexSet } from '../options.js';

export function indexCommand(): Command {
  return (
    new Command('index')
      .description('switch a seeded database to an index set, without reloading')
      .addOption(dbOption())
      .addOption(
        new Option(
          '--indexes <set>',
          'the index set to switch to: baseline (primary keys only) or optimized',
        ).argParser(parseIndexSet),
      )
      // the old spelling, kept for scripts
      .addOption(new Option('--profile <set>').argParser(parseIndexSet).hideHelp())
      .addHelpText(
        'after',
        examples(
          'mcp-db-bench index --indexes baseline',
          'mcp-db-bench index --db postgres://bench:bench@127.0.0.1:5432/bench --indexes optimized',
        ),
      )
      .action(async (options: { db: string; indexes?: IndexSet; profile?: IndexSet }) => {
        const indexes = options.indexes ?? options.profile;
        if (!indexes) throw new UsageError('index needs --indexes baseline or --indexes optimized');
        const flags = { db: options.db, indexes };
        const t0 = performance.now();
        const { created, dropped } = await onDatabase(flags.db, () => applyIndexSet(flags.db, flags.indexes));
        const seconds = ((performance.now() - t0) / 1000).toFixed(2);
        process.stdout.write(
          `${redactUrl(flags.db)}: ${flags.indexes} index set in ${seconds} s; created ${created.length ? created.join(', ') : 'none'}; dropped ${dropped.length ? dropped.join(', ') : 'none'}\n`,
        );
      })
  );
}
