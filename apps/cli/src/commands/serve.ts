import { spawn } from 'node:child_process';
import { seedInWorker } from '@mcp-db-bench/dataset';
import { ToolError } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/server';
import { Command, Option } from 'commander';
import { DEFAULT_DB, parseProfile, parseScale, parseSeed } from '../options.js';
import { serverBin } from '../run/server-process.js';

interface ServeFlags {
  db: string;
  scale: number;
  seed: number;
  indexes: 'baseline' | 'optimized';
  stdio?: boolean;
  host: string;
  port: string;
  token?: string;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('seed a database if it has no dataset yet, then serve it with our MCP server (HTTP, or stdio for hosts)')
    .addOption(new Option('--db <url>', 'database URL').env('MCP_DB_BENCH_DB').default(DEFAULT_DB))
    .addOption(new Option('--scale <n>', 'dataset scale when seeding').default(0.01).argParser(parseScale))
    .addOption(new Option('--seed <n>', 'dataset seed when seeding').default(42).argParser(parseSeed))
    .addOption(new Option('--indexes <profile>', 'index profile when seeding').default('optimized').argParser(parseProfile))
    .option('--stdio', 'serve over stdio instead of HTTP')
    .option('--host <host>', 'HTTP bind address', '127.0.0.1')
    .option('--port <port>', 'HTTP port', '7400')
    .option('--token <token>', 'require this bearer token over HTTP')
    .action(async (flags: ServeFlags) => {
      try {
        const report = await seedInWorker({ url: flags.db, scale: flags.scale, seed: flags.seed, indexes: flags.indexes, force: false });
        process.stderr.write(`seeded ${redactUrl(flags.db)}: ${report.tables.reduce((n, t) => n + t.rows, 0)} rows\n`);
      } catch (error) {
        if (!(error instanceof ToolError && /already has dataset tables/.test(error.message))) throw error;
      }
      const args = ['--url', flags.db, '--echo'];
      if (!flags.stdio) args.push('--http', '--host', flags.host, '--port', flags.port);
      if (flags.token) args.push('--token', flags.token);
      const child = spawn(process.execPath, [serverBin(), ...args], { stdio: 'inherit' });
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      process.exitCode = code ?? 0;
    });
}
