import { spawn } from 'node:child_process';
import { assertSafeBind } from '@mcp-db-bench/server';
import { Command, Option } from 'commander';
import { EXIT, UsageError } from '../errors.js';
import { dbOption, examples, indexesOption, scaleOption, seedOption } from '../options.js';
import { parsePositiveInt } from '../parse/durations.js';
import { parsePort } from '../parse/values.js';
import { trackChild } from '../serving/interrupt.js';
import { seedIfMissing } from '../serving/seed-if-missing.js';
import { serverBin } from '../serving/server-process.js';

interface ServeFlags {
  db: string;
  scale: number;
  seed: number;
  indexes: 'baseline' | 'optimized';
  stdio?: boolean;
  host: string;
  port: number;
  token?: string;
  workers: number | 'auto';
}

export function serveCommand(): Command {
  return (
    new Command('serve')
      .description(
        'seed a database if it has no dataset yet, then serve it with our MCP server (HTTP, or stdio for hosts)',
      )
      .addOption(dbOption())
      .addOption(scaleOption('dataset scale when seeding'))
      .addOption(seedOption('dataset seed when seeding'))
      .addOption(indexesOption('index set when seeding'))
      .addOption(new Option('--stdio', 'serve over stdio instead of HTTP').conflicts('http'))
      // mcp-db-server's spelling of the default, hidden
      .addOption(new Option('--http', 'serve over HTTP (the default)').hideHelp())
      .option('--host <host>', 'HTTP bind address', '127.0.0.1')
      .addOption(new Option('--port <port>', 'HTTP port (0 picks a free one)').default(7400).argParser(parsePort))
      .option('--token <token>', 'require this bearer token over HTTP')
      // the server's own default (one per core but one), so a side-by-side with another server measures what users run
      .addOption(
        new Option(
          '--workers <n>',
          'HTTP worker processes sharing the port (mcp-db-server --workers; auto: one per core but one)',
        )
          .default('auto')
          .argParser((v) => (v === 'auto' ? v : parsePositiveInt('workers')(v))),
      )
      .addHelpText(
        'after',
        examples(
          'mcp-db-bench serve',
          'mcp-db-bench serve --stdio --db sqlite:shop.db',
          'mcp-db-bench serve --db postgres://bench:bench@127.0.0.1:5432/bench --port 7400 --token $TOKEN --workers 2',
        ),
      )
      .action(async (flags: ServeFlags) => {
        if (flags.stdio && flags.workers !== 'auto' && flags.workers > 1)
          throw new UsageError('--workers needs HTTP: over --stdio the host talks to one process');
        // Before seeding: the server would refuse the address only after the dataset was written.
        if (!flags.stdio) {
          try {
            assertSafeBind({ host: flags.host, token: flags.token });
          } catch (error) {
            throw new UsageError((error as Error).message);
          }
        }
        const { scale, seed, indexes } = flags;
        await seedIfMissing(flags.db, { scale, seed, indexes }, (line) => process.stderr.write(`${line}\n`));
        const args = ['--url', flags.db, '--echo'];
        if (!flags.stdio)
          args.push('--http', '--host', flags.host, '--port', String(flags.port), '--workers', String(flags.workers));
        if (flags.token) args.push('--token', flags.token);
        // tracked: a SIGKILL of this process stops the server too (the watchdog of serving/interrupt.ts)
        const child = trackChild(spawn(process.execPath, [serverBin(), ...args], { stdio: 'inherit' }));
        let stoppedBy: 'SIGINT' | 'SIGTERM' | 'SIGHUP' | undefined;
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
          process.on(signal, () => {
            stoppedBy = signal;
            child.kill(signal);
          });
        const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
        // stopped as asked, the server closes cleanly (0): exit as every command does when interrupted
        process.exitCode =
          stoppedBy && !code
            ? EXIT[stoppedBy.toLowerCase() as 'sigint' | 'sigterm' | 'sighup']
            : (code ?? EXIT.failure);
      })
  );
}
