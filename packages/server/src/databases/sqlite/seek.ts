import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import type { AnyDb } from '../engine.js';
import { sqliteDialect } from './dialect.js';

/**
 * Primary-key reads on the calling thread. Such a read is one index seek: it cannot run long the
 * way an arbitrary statement can (the reason statements go to worker threads, see worker-pool.ts),
 * and here it skips the hand-off to a thread and back, the largest cost of a `get` on the main
 * thread. The connection is read-only, runs only statements that return rows (`all`), and never
 * waits for a lock: a read that finds the file locked (a rollback-journal database while a write
 * commits) goes to the worker pool instead.
 */
class SeekConnection implements DatabaseConnection {
  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly fallback: AnyDb,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return { rows: this.database.prepare(query.sql).all(query.parameters as unknown[]) as R[] };
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      return await this.fallback.executeQuery<R>(query);
    }
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; kysely requires the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the SQLite seek connection');
  }
}

/** One connection, never exclusive: each statement runs to completion before the next starts. */
class SeekDriver implements Driver {
  readonly #connection: SeekConnection;

  constructor(private readonly database: BetterSqlite3.Database, fallback: AnyDb) {
    this.#connection = new SeekConnection(database, fallback);
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }
  async releaseConnection(): Promise<void> {}
  async beginTransaction(): Promise<void> {
    throw new Error('the SQLite seek connection only reads');
  }
  commitTransaction = this.beginTransaction;
  rollbackTransaction = this.beginTransaction;
  async destroy(): Promise<void> {
    this.database.close();
  }
}

/** `database`: opened read-only, statements cached, `busy_timeout = 0`; `fallback`: the worker pool. */
export function seekDialect(database: BetterSqlite3.Database, fallback: AnyDb): Dialect {
  return sqliteDialect(() => new SeekDriver(database, fallback));
}
