import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { ToolError } from '@mcp-db-bench/contract';
import type { ConnectOptions, Connection } from '../engine.js';
import { loadDriver } from '../load-driver.js';
import { cacheStatements } from './statement-cache.js';

/** `sqlite:PATH`, `sqlite://PATH`, `sqlite:///abs/path` or `sqlite::memory:`. */
export function sqlitePath(url: string): string {
  const rest = url.replace(/^sqlite:/i, '');
  if (rest === ':memory:' || rest === '//:memory:') return ':memory:';
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new ToolError('invalid_argument', 'sqlite URL has no path: use sqlite:PATH or sqlite::memory:');
  return decodeURIComponent(path);
}

export async function connect(url: string, options: ConnectOptions): Promise<Connection> {
  const Database = await loadDriver<typeof BetterSqlite3>('sqlite', 'better-sqlite3');
  const path = sqlitePath(url);
  let database: BetterSqlite3.Database;
  try {
    // A typo in a path must not silently create an empty database, unless asked to.
    database = new Database(path, { fileMustExist: path !== ':memory:' && !options.create });
    // Opening is lazy about the header: read it now, so a wrong file fails here, with its name.
    database.pragma('schema_version');
  } catch (error) {
    throw new ToolError('database_unavailable', `cannot open SQLite database ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Integers arrive as BigInt so values past 2^53 survive; shared code renders them.
  database.defaultSafeIntegers(true);
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = ON');
  const db = new Kysely({ dialect: new SqliteDialect({ database: cacheStatements(database) }) });
  return { db, driver: database, close: () => db.destroy() };
}
