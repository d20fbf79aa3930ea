import type { PortableType, Scalar } from '@mcp-db-bench/contract';
import type { ToolError } from '@mcp-db-bench/contract';
import type { CompiledQuery, Dialect, Kysely, QueryResult, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { RawCatalog, Table } from '../catalog/types.js';

/** SQL families: engines in one family share a dialect and most facts (MariaDB joins mysql). */
export type SqlFamily = 'postgres' | 'mysql' | 'mssql' | 'sqlite';

// biome-ignore lint/suspicious/noExplicitAny: tables are discovered at run time
export type AnyDb = Kysely<any>;
// biome-ignore lint/suspicious/noExplicitAny: tables are discovered at run time
export type AnySelect = SelectQueryBuilder<any, any, any>;

export interface ConnectOptions {
  /** most connections the pool opens */
  poolSize: number;
  /** longest a statement waits for a pooled connection before failing; default DEFAULT_POOL_WAIT_MS */
  poolWaitMs?: number;
  /** create the database if it does not exist (SQLite files); off for servers, on for seeding */
  create?: boolean;
  /** sessions the engine itself keeps from writing (see each engine's connect) */
  readOnly?: boolean;
  /** the engine cancels a statement that runs longer than this; 0 or absent: no limit */
  statementTimeoutMs?: number;
  /**
   * Run statements on the calling thread and expose the driver handle, for bulk loading.
   * Only SQLite differs: a server runs its statements on worker threads.
   */
  inProcess?: boolean;
}

export interface Connection {
  db: AnyDb;
  /** Where single-table reads go when the engine has a cheaper path for short ones; absent: `db`. */
  shortReads?: ShortReads;
  /**
   * The driver-level handle under `db` (a pg Pool, a mysql2 Pool, a better-sqlite3 Database),
   * for bulk paths kysely does not model, such as COPY; undefined where none is exposed.
   */
  driver: unknown;
  close(): Promise<void>;
}

/** A comparison `column op ?` in a where clause made of nothing else, ANDed. */
export interface Comparison {
  column: string;
  op: '=' | '<' | '<=' | '>' | '>=';
}

/**
 * Single-table reads that the engine may serve more cheaply than `db` does, when it can prove
 * them short (SQLite: on the calling thread instead of a worker thread, see
 * sqlite/short-reads.ts). What it cannot prove short, it runs on `db`.
 */
export interface ShortReads {
  /** `table`: the base table read; `where`: every condition of the statement's where clause. */
  execute<R>(query: CompiledQuery, table: Table, where: readonly Comparison[]): Promise<QueryResult<R>>;
}

/**
 * Everything shared code needs to know about one engine. Each engine's folder exports one
 * profile; shared code asks the profile and never switches on an engine name.
 */
export interface EngineProfile {
  /** user-facing name, e.g. `postgres` */
  readonly name: string;
  readonly family: SqlFamily;
  /** URL schemes that select this engine, without the colon */
  readonly schemes: readonly string[];
  /** npm packages the engine loads lazily; named in the error when one is missing */
  readonly drivers: readonly string[];

  /** Opens a pool (loading the driver now, not at import time). */
  connect(url: string, options: ConnectOptions): Promise<Connection>;

  /** A dialect that compiles but never connects: for compiled-SQL tests and offline checks. */
  compileOnlyDialect(): Dialect;

  /** Reads tables, views, columns, keys, foreign keys, indexes and row estimates. */
  introspect(db: AnyDb): Promise<RawCatalog>;

  /** Applies a row limit (`limit n` on most engines, `top n` on SQL Server). */
  limit(query: AnySelect, n: number): AnySelect;

  /**
   * Turns a portable filter value into the parameter the driver binds for a column of this
   * type (booleans as 1/0 where the engine has no boolean, timestamps in the stored text form
   * on SQLite, big integers as BigInt where the driver wants them). Values were already checked
   * against the type.
   */
  encodeParam(type: PortableType, value: Exclude<Scalar, null>): unknown;

  /** Maps a driver error to a tool error, or undefined when it is not a known kind. */
  mapError(error: unknown): ToolError | undefined;

  /** The most bound parameters one statement may carry. */
  readonly maxParameters: number;

  /**
   * Inserts rows (values already encoded, one array per row in `columns` order) and returns
   * each row's primary key as the driver reads it, in row order, generated values included.
   */
  insertReturningKeys(db: AnyDb, table: string, columns: readonly string[], rows: readonly unknown[][], key: readonly string[]): Promise<Record<string, unknown>[]>;

  /**
   * Runs one caller-written statement so the engine itself refuses any write: inside a
   * read-only transaction that is always rolled back, as a single statement, returning at
   * most `maxRows` rows. Absent where the engine has no such mode (the `sql` tool is refused).
   */
  readonly readOnlyStatement?: (db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) => Promise<Record<string, unknown>[]>;
}
