import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { TABLES } from '@mcp-db-bench/dataset';
import { ENGINES, engineForUrl, redactUrl } from '@mcp-db-bench/engines';
import { MIN_NODE, nodeVersionProblem } from '@mcp-db-bench/server/node-version';
import { Command } from 'commander';
import { dbListOption, examples } from '../options.js';
import { serverBin } from '../serving/server-process.js';

/** Checks what a run needs: Node, the server, each driver, and each database given. */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description('check Node, the MCP server, the database drivers and the databases you name')
    .addOption(dbListOption('databases to check', false))
    .addHelpText(
      'after',
      examples(
        'mcp-db-bench doctor',
        'mcp-db-bench doctor --db sqlite:mcp-db-bench.db --db postgres://bench:bench@127.0.0.1:5432/bench',
      ),
    )
    .action(async (flags: { db?: string[] }) => {
      let failures = 0;
      const line = (ok: boolean, text: string) => {
        if (!ok) failures++;
        process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${text}\n`);
      };
      const node = process.versions.node;
      line(nodeVersionProblem('mcp-db-bench', node) === undefined, `Node ${node} (needs ${MIN_NODE} or newer)`);
      const server = createRequire(serverBin());
      line(true, `MCP server ${serverBin()}`);
      // Drivers are optional: a missing one matters only for a database that needs it (checked below).
      for (const [pkg, titles] of driverUsers()) {
        let version: string;
        try {
          version = installedVersion(server, pkg);
        } catch {
          process.stdout.write(`--   ${titles} driver ${pkg}: not installed (npm install ${pkg})\n`);
          continue;
        }
        try {
          server(pkg);
          line(true, `${titles} driver ${pkg} ${version}`);
        } catch (error) {
          line(false, `${titles} driver ${pkg} ${version}: ${(error as Error).message.split('\n')[0]}`);
        }
      }
      for (const url of flags.db ?? []) {
        try {
          const engine = engineForUrl(url);
          const { db, close } = await engine.connect(url, { poolSize: 1 });
          try {
            const names = new Set((await engine.introspect(db)).tables.map((t) => t.name));
            const present = TABLES.filter((t) => names.has(t.name)).length;
            line(
              true,
              `${redactUrl(url)}: connected (${engine.name}); ${present} of ${TABLES.length} dataset tables${present < TABLES.length ? ' (run mcp-db-bench seed)' : ''}`,
            );
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

/** Each driver package with the engines that load it: `mysql2` → `MySQL, MariaDB`. */
function driverUsers(): Map<string, string> {
  const users = new Map<string, string[]>();
  for (const engine of ENGINES)
    for (const pkg of engine.drivers) users.set(pkg, [...(users.get(pkg) ?? []), engine.title]);
  return new Map([...users].map(([pkg, titles]) => [pkg, titles.join(', ')]));
}

/** The engine's reading of a driver error, when the URL names an engine at all. */
function safeMap(url: string, error: unknown): Error | undefined {
  try {
    return engineForUrl(url).mapError(error);
  } catch {
    return undefined;
  }
}

/**
 * The version of `pkg` as `require` finds it; throws when it is not installed. A package whose
 * `exports` leave out its package.json (PGlite's) is found from its entry point, upwards.
 */
function installedVersion(require: NodeJS.Require, pkg: string): string {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    for (let dir = dirname(require.resolve(pkg)); dir !== dirname(dir); dir = dirname(dir)) {
      try {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
          name?: string;
          version: string;
        };
        if (manifest.name === pkg) return manifest.version;
      } catch {
        // no package.json at this level: look one higher
      }
    }
    throw new Error(`${pkg}: no package.json found`);
  }
}
