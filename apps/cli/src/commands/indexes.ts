import type { IndexSet } from '@mcp-db-bench/dataset';
import { applyIndexSet } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/engines';
import { Command, Option } from 'commander';
import { onDatabase, UsageError } from '../errors.js';
import { dbOption, examples, parseProfile } from '../options.js';

export function indexCommand(): Command {
  return (
    new Command('index')
      .description('switch a seeded database to an index profile, without reloading')
      .addOption(dbOption())
      .addOption(
        new Option(
          '--indexes <profile>',
          'the profile to switch to: baseline (primary keys only) or optimized',
        ).argParser(parseProfile),
      )
      // the old spelling, kept for scripts
      .addOption(new Option('--profile <profile>').argParser(parseProfile).hideHelp())
      .addHelpText(
        'after',
        examples(
          'mcp-db-bench index --indexes baseline',
          'mcp-db-bench index --db postgres://bench:bench@127.0.0.1:5432/bench --indexes optimized',
        ),
      )
      .action(async (options: { db: string; indexes?: IndexSet; profile?: IndexSet }) => {
        const profile = options.indexes ?? options.profile;
        if (!profile) throw new UsageError('index needs --indexes baseline or --indexes optimized');
        const flags = { db: options.db, profile };
        const t0 = performance.now();
        const { created, dropped } = await onDatabase(flags.db, () => applyIndexSet(flags.db, flags.profile));
        const seconds = ((performance.now() - t0) / 1000).toFixed(2);
        process.stdout.write(
          `${redactUrl(flags.db)}: ${flags.profile} profile in ${seconds} s; created ${created.length ? created.join(', ') : 'none'}; dropped ${dropped.length ? dropped.join(', ') : 'none'}\n`,
        );
      })
  );
}
