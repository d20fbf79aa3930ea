import { createRequire } from 'node:module';
import { TABLES } from '@mcp-db-bench/dataset';
import { engineForUrl, redactUrl } from '@mcp-db-bench/server';
import { Command } from 'commander';
import { serverBin } from '../run/server-process.js';

const DRIVERS = [
  ['pg', 'PostgreSQL'],
  ['mysql2', 'MySQL / MariaDB'],
  ['tedious', 'SQL Server'],
  ['better-sqlite3', 'SQLite'],
] as const;

/** Checks what a run needs: Node, the server, each driver, and each database given. */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description('check Node, the MCP server, the database drivers and the databases you name')
    .option('--db <url...>', 'databases to check')
    .action(async (flags: { db?: string[] }) => {
      let failures = 0;
      const line = (ok: boolean, text: string) => {
        if (!ok) failures++;
        process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${text}\n`);
      };
      const major = Number(process.versions.node.split('.')[0]);
      line(major >= 22, `Node ${process.versions.node} (needs 22 or newer)`);
      const server = createRequire(serverBin());
      line(true, `MCP server ${serverBin()}`);
      for (const [pkg, engine] of DRIVERS) {
        try {
          const version = (server(`${pkg}/package.json`) as { version: string }).version;
          server(pkg);
          line(true, `${engine} driver ${pkg} ${version}`);
        } catch (error) {
          line(false, `${engine} driver ${pkg}: ${(error as Error).message.split('\n')[0]}`);
        }
      }
      for (const url of flags.db ?? []) {
        try {
          const engine = engineForUrl(url);
          const { db, close } = await engine.connect(url, { poolSize: 1 });
          try {
            const names = new Set((await engine.introspect(db)).tables.map((t) => t.name));
            const present = TABLES.filter((t) => names.has(t.name)).length;
            line(true, `${redactUrl(url)}: connected (${engine.name}); ${present} of ${TABLES.length} dataset tables${present < TABLES.length ? ' (run mcp-db-bench seed)' : ''}`);
          } finally {
            await close();
          }
        } catch (error) {
          const known = safeMap(url, error);
          line(false, `${redactUrl(url)}: ${(known ?? (error as Error)).message}`);
        }
      }
      process.exitCode = failures ? 1 : 0;
    });
}

/** The engine's reading of a driver error, when the URL names an engine at all. */
function safeMap(url: string, error: unknown): Error | undefined {
  try {
    return engineForUrl(url).mapError(error);
  } catch {
    return undefined;
  }
}
