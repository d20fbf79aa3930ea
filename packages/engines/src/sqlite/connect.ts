import { ToolError } from '@mcp-db-bench/contract';
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { answerBudget, answerTooLarge } from '../answer-bytes.js';
import { Statements } from '../calls.js';
import type { AnyDb, Connection, ConnectOptions, SqlConnectOptions } from '../engine.js';
import { loadDriver } from '../load-driver.js';
import { DEFAULT_POOL_WAIT_MS } from '../pool-wait.js';
import { SESSION_PRAGMAS, startSession } from './pragmas.js';
import { useReader } from './read-only.js';
import { SqliteShortReads } from './short-reads.js';
import { cacheStatements } from './statement-cache.js';
import { workerPoolDialect } from './worker-pool.js';

/** `sqlite:PATH`, `sqlite://PATH`, `sqlite:///abs/path` or `sqlite::memory:`. */
export function sqlitePath(url: string): string {
  const rest = url.replace(/^sqlite:/i, '');
  if (rest === ':memory:' || rest === '//:memory:') return ':memory:';
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '')
    throw new ToolError('invalid_argument', 'sqlite URL has no path: use sqlite:PATH or sqlite::memory:');
  return decodeURIComponent(path);
}

/** Threads beyond the cores only help when some run slow statements; each costs memory. */
const MAX_WORKERS = 2;

export async function connect(url: string, options: ConnectOptions): Promise<Connection> {
  const Database = await loadDriver<typeof BetterSqlite3>('sqlite', 'better-sqlite3');
  const path = sqlitePath(url);
  let database: BetterSqlite3.Database;
  try {
    // A typo in a path must not silently create an empty database, unless asked to.
    // A read-only server opens the file read-only: SQLite itself then refuses every write.
    database = new Database(path, {
      fileMustExist: path !== ':memory:' && !options.create,
      readonly: options.readOnly === true && path !== ':memory:',
    });
    // Opening is lazy about the header: read it now, so a wrong file fails here, with its name.
    database.pragma('schema_version');
  } catch (error) {
    throw new ToolError('database_unavailable', `cannot open SQLite database ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Serving: statements run on worker threads, so a slow one cannot stall the event loop.
  // A memory database exists only in its own connection, so it stays on this thread.
  if (!options.inProcess && path !== ':memory:') {
    database.close();
    const statements = new Statements(options.observer);
    const limit = answerLimit(options.maxResponseBytes);
    const dialect = workerPoolDialect(
      {
        path,
        pragmas: SESSION_PRAGMAS,
        readOnly: options.readOnly === true,
        answerLimit: limit && { ...limit, rowByRow: false },
        size: Math.min(options.poolSize, MAX_WORKERS),
        statementTimeoutMs: options.statementTimeoutMs ?? 0,
        acquireTimeoutMs: options.poolWaitMs ?? DEFAULT_POOL_WAIT_MS,
      },
      statements,
    );
    const db = new Kysely({ dialect });
    const shortReads = SqliteShortReads.open(Database, path, db, statements);
    // The config file's read-only tools: one process of their own, in turn (the sql tool has its own, connectSql).
    const readers = processPool(path, { ...options, poolSize: 1 }, statements);
    useReader(db, readers);
    return {
      db,
      shortReads,
      driver: undefined,
      close: async () => {
        await statements.close();
        await readers.destroy();
        shortReads.close();
        await db.destroy();
      },
    };
  }
  const db = new Kysely({ dialect: new SqliteDialect({ database: cacheStatements(startSession(database)) }) });
  return { db, driver: database, close: () => db.destroy() };
}

/** The largest answer the workers read, with its error made here (worker.ts imports only packages). */
function answerLimit(maxResponseBytes: number | undefined): { bytes: number; message: string } | undefined {
  const bytes = answerBudget(maxResponseBytes);
  return Number.isFinite(bytes) ? { bytes, message: answerTooLarge(bytes).message } : undefined;
}

/**
 * A pool of child processes that open the file read-only, for caller-written SQL: each counts the
 * rows it reads one by one, and one that runs past the timeout, or whose call's client leaves, is
 * killed (sql-process.ts). A call waits at most `poolWaitMs` for one.
 */
function processPool(
  path: string,
  options: Omit<SqlConnectOptions, 'role' | 'poolWaitMs'> & { poolWaitMs?: number },
  statements: Statements,
): AnyDb {
  const limit = answerLimit(options.maxResponseBytes);
  const db = new Kysely({
    dialect: workerPoolDialect(
      {
        path,
        pragmas: SESSION_PRAGMAS,
        readOnly: true,
        answerLimit: limit && { ...limit, rowByRow: true },
        processes: true,
        size: options.poolSize,
        statementTimeoutMs: options.statementTimeoutMs ?? 0,
        acquireTimeoutMs: options.poolWaitMs ?? DEFAULT_POOL_WAIT_MS,
      },
      statements,
    ),
  });
  useReader(db, db);
  return db;
}

/**
 * The sql tool's own processes (processPool), apart from the config file's tools' one. A memory
 * database exists only in its one connection: there the sql tool shares it, with query_only on
 * for its statements (read-only.ts), and nothing else can be kept on the connection past them.
 */
export async function connectSql(url: string, options: SqlConnectOptions, main: Connection): Promise<Connection> {
  if (options.role !== undefined)
    throw new ToolError(
      'invalid_argument',
      "a role for the sql tool's sessions is for PostgreSQL: SQLite has no users",
    );
  const path = sqlitePath(url);
  if (path === ':memory:') return { db: main.db, driver: main.driver, close: async () => {} };
  const statements = new Statements(options.observer);
  const db = processPool(path, options, statements);
  return { db, driver: undefined, close: statements.closing(db) };
}
