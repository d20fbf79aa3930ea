import { applyIndexProfile } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/server';
import { Command, Option } from 'commander';
import { dbOption, parseProfile } from '../options.js';

export function indexCommand(): Command {
  return new Command('index')
    .description('switch a seeded database to an index profile, without reloading')
    .addOption(dbOption())
    .addOption(new Option('--profile <profile>', 'baseline (primary keys only) or optimized').makeOptionMandatory().argParser(parseProfile))
    .action(async (flags: { db: string; profile: 'baseline' | 'optimized' }) => {
      const t0 = performance.now();
      const { created, dropped } = await applyIndexProfile(flags.db, flags.profile);
      const seconds = ((performance.now() - t0) / 1000).toFixed(2);
      process.stdout.write(
        `${redactUrl(flags.db)}: ${flags.profile} profile in ${seconds} s; created ${created.length ? created.join(', ') : 'none'}; dropped ${dropped.length ? dropped.join(', ') : 'none'}\n`,
      );
    });
}
