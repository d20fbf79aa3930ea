import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '@mcp-db-bench/contract';
import { Kysely, PGliteDialect } from 'kysely';
import { observedDialect } from '../calls.js';
import type { Connection, ConnectOptions, SqlConnectOptions } from '../engine.js';
import { loadDriver } from '../load-driver.js';
import { TEXT_PARSERS } from '../postgres/connect.js';
import { lockDataDir } from './lock.js';

type PGliteModule = typeof import('@electric-sql/pglite');

const MEMORY = 'memory://';

/** `pglite:PATH` (a data directory), `pglite://PATH` or `pglite::memory:`. */
export function pgliteDir(url: string): string {
  const rest = url.replace(/^pglite:/i, '');
  if (rest === ':memory:' || rest === '//:memory:') return MEMORY;
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '')
    throw new ToolError('invalid_argument', 'pglite URL has no path: use pglite:DIRECTORY or pglite::memory:');
  return decodeURIComponent(path);
}

/**
 * Opens PostgreSQL compiled to WebAssembly, in this process: one connection, its statements
 * run on the event loop one at a time and cannot be cancelled, so `statementTimeoutMs` is not
 * enforced. A data directory is held by one process at a time (see lock.ts).
 */
export async function connect(url: string, options: ConnectOptions): Promise<Connection> {
  const dir = pgliteDir(url);
  const { PGlite } = await loadDriver<PGliteModule>('pglite', '@electric-sql/pglite');
  let release = () => {};
  if (dir !== MEMORY) {
    // A typo in a path must not silently create an empty database, unless asked to.
    if (!existsSync(join(dir, 'PG_VERSION'))) {
      if (!options.create)
        throw new ToolError('database_unavailable', `no PGlite database at ${dir} (a data directory with PG_VERSION)`);
      mkdirSync(dir, { recursive: true });
    }
    release = await lockDataDir(dir);
  }
  let pglite: InstanceType<PGliteModule['PGlite']>;
  try {
    pglite = await PGlite.create(dir, { parsers: TEXT_PARSERS });
    // Like a read-only PostgreSQL session: the database refuses every write.
    if (options.readOnly) await pglite.exec('set default_transaction_read_only = on');
  } catch (error) {
    release();
    throw new ToolError('database_unavailable', `cannot open PGlite database ${dir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // kysely runs one statement or transaction at a time on PGlite's one connection, so a
  // statement that arrives during a transaction waits for it instead of joining it.
  const dialect = new PGliteDialect({ pglite });
  const db = new Kysely({ dialect: options.observer ? observedDialect(dialect, options.observer) : dialect });
  return {
    db,
    driver: pglite,
    close: async () => {
      await db.destroy();
      // kysely closes PGlite only if it ran a statement on it
      if (!pglite.closed) await pglite.close();
      release();
    },
  };
}

/**
 * What DISCARD ALL clears, but the settings: the server's own (read-only) were made with SET on
 * the one connection, which RESET ALL would undo, and every setting a caller's statement makes is
 * undone by its rollback anyway. Run after each caller's statement (index.ts).
 */
export const RESET = [
  'close all',
  'deallocate all',
  'unlisten *',
  'select pg_advisory_unlock_all()',
  'discard plans',
  'discard sequences',
  'discard temp',
];

/**
 * The sql tool on PGlite shares the one connection (a second instance could not open the same
 * data directory): its calls take turns with every other call, as they all do here, and the
 * connection is cleared after each of its statements (RESET). No role: one user, in this process.
 */
export async function connectSql(_url: string, options: SqlConnectOptions, main: Connection): Promise<Connection> {
  if (options.role !== undefined)
    throw new ToolError('invalid_argument', "a role for the sql tool's sessions is for PostgreSQL, not PGlite");
  return { db: main.db, driver: main.driver, close: async () => {} };
}
