import type { PortableType, Scalar, ToolError } from '@mcp-db-bench/contract';
import type { CompiledQuery, Dialect, Kysely, QueryResult, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { StatementObserver } from './calls.js';
import type { RawCatalog, Table } from './catalog.js';
import type { SqlFamily } from './families.js';
import type { TextLexicon } from './lexicon.js';
import type { SqlPolicy } from './sql-guard.js';

export type { SqlFamily } from './families.js';

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
  /** a connection to the server itself, to create or drop databases: the URL may name none */
  serverLevel?: boolean;
  /** sessions the engine itself keeps from writing (see each engine's connect) */
  readOnly?: boolean;
  /** the engine cancels a statement that runs longer than this; 0 or absent: no limit */
  statementTimeoutMs?: number;
  /**
   * Run statements on the calling thread and expose the driver handle, for bulk loading.
   * Only SQLite differs: a server runs its statements on worker threads.
   */
  inProcess?: boolean;
  /** told of every statement the connection runs and every wait for a pooled connection (telemetry) */
  observer?: StatementObserver;
  /**
   * The largest result a caller takes, in bytes of JSON (the server's --max-response-bytes): a
   * statement whose rows pass twice this while they are read is stopped (answer-bytes.ts). Absent: no limit.
   */
  maxResponseBytes?: number;
}

/** How the sql tool's own connections are opened (Engine.connectSql): always read-only. */
export interface SqlConnectOptions {
  /** most connections of its own */
  poolSize: number;
  /** longest a call waits for one of them: past it, the wait fails with a PoolWaitExceeded error */
  poolWaitMs: number;
  /** the engine cancels a statement that runs longer than this; 0 or absent: no limit */
  statementTimeoutMs?: number;
  /** told of every statement and wait, as ConnectOptions.observer */
  observer?: StatementObserver;
  /** as ConnectOptions.maxResponseBytes */
  maxResponseBytes?: number;
  /**
   * A role the sessions take after login, narrower than the login (PostgreSQL's `SET ROLE`); an
   * engine whose roles cannot narrow a login refuses it (ToolError, invalid_argument).
   */
  role?: string;
}

/** What `settings` reads: a version string and the settings by their engine's own names, values as the engine shows them. */
export interface EngineSettings {
  version: string;
  settings: Record<string, string>;
  /**
   * The engine as its users name it, where the server says it is another engine of the family
   * than the URL named (a MariaDB server reached by `mysql://`): reports label it so.
   */
  name?: string;
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
 * Single-table reads that the engine serves more cheaply than `db` does: SQLite on the calling
 * thread instead of a worker thread, when it can prove them short (sqlite/short-reads.ts), and
 * running the rest on `db`; PostgreSQL on a pooled client past kysely's executor
 * (postgres/direct-reads.ts).
 */
export interface ShortReads {
  /**
   * `table`: the base table read; `where`: every condition of the statement's where clause,
   * undefined when the clause is more than comparisons ANDed.
   */
  execute<R>(query: CompiledQuery, table: Table, where: readonly Comparison[] | undefined): Promise<QueryResult<R>>;
}

/**
 * Everything shared code needs to know about one engine. Each engine's folder defines one
 * (with `defineEngine`); shared code asks it and never switches on an engine name. `F` is its
 * family as a literal, from which the registry makes the `SqlFamily` union.
 */
export interface Engine<F extends string = SqlFamily> {
  /** user-facing name, e.g. `postgres` */
  readonly name: string;
  /** the product's name, for people: `PostgreSQL` */
  readonly title: string;
  /**
   * Engines in one family share a dialect and most facts (MariaDB is in `mysql`, PGlite in
   * `postgres`). The engine's own name by default.
   */
  readonly family: F;
  /** URL schemes that select this engine, without the colon */
  readonly schemes: readonly string[];
  /** how its URLs are written, for help and error messages: `postgres://USER:PASS@HOST:5432/DB` */
  readonly urlForms: readonly string[];
  /**
   * A server reached over TCP: the port it listens on when a URL names none (how a run finds the
   * database's process on this machine, to count its CPU as the run's own). None: the database
   * runs inside our server's process (SQLite, PGlite).
   */
  readonly port?: number;
  /** its OpenTelemetry `db.system.name` (semantic conventions): `postgresql`; the engine's name by default */
  readonly dbSystem: string;
  /** npm packages the engine loads lazily (optional peer dependencies); named in the error when one is missing */
  readonly drivers: readonly string[];

  /** Throws (invalid_argument) for a mistake in the URL itself, found without connecting: a command-line mistake. */
  checkUrl?(url: string): void;

  /** Opens a pool (loading the driver now, not at import time). */
  connect(url: string, options: ConnectOptions): Promise<Connection>;

  /** A dialect that compiles but never connects: for compiled-SQL tests and offline checks. */
  compileOnlyDialect(): Dialect;

  /** Reads tables, views, columns, keys, foreign keys, indexes and row estimates. */
  introspect(db: AnyDb): Promise<RawCatalog>;

  /** Applies a row limit (`limit n` on most engines, `top n` on SQL Server). */
  limit(query: AnySelect, n: number): AnySelect;

  /**
   * Whether a compiled row limit is a bound parameter (`limit ?`, the default) or text in the
   * statement (SQL Server's `top (n)`; SQLite's literal, see sqlite/dialect.ts): a cached
   * statement's parameters include it, or not.
   */
  readonly limitIn: 'parameter' | 'text';

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
   * How its SQL text quotes and comments (lexicon.ts): where the server looks for `:name`
   * parameters in the sql tool's and custom tools' statements. Standard SQL's by default.
   */
  readonly lexicon: TextLexicon;

  /**
   * Inserts rows (values already encoded, one array per row in `columns` order) and returns
   * each row's primary key as the driver reads it, in row order, generated values included.
   */
  insertReturningKeys(
    db: AnyDb,
    table: string,
    columns: readonly string[],
    rows: readonly unknown[][],
    key: readonly string[],
  ): Promise<Record<string, unknown>[]>;

  /**
   * Has the database compile one statement, with its parameters bound, without running it
   * (EXPLAIN): rejects with the database's own error for a mistake in it (a missing column, a
   * syntax error). The server checks each custom tool's statement with it at start. Absent where
   * the engine has no such statement (those tools are then checked at their first call).
   */
  readonly explain?: (db: AnyDb, statement: RawBuilder<unknown>) => Promise<void>;

  /**
   * Runs one caller-written statement so the engine itself refuses any write: inside a
   * read-only transaction that is always rolled back, as a single statement, returning at
   * most `maxRows` rows. Absent where the engine has no such mode (the `sql` tool is refused).
   */
  readonly readOnlyStatement?: (
    db: AnyDb,
    statement: RawBuilder<unknown>,
    maxRows: number,
  ) => Promise<Record<string, unknown>[]>;

  /**
   * Refuses, before it runs, a caller-written statement (as compiled, with the engine's own
   * placeholders) that a read-only transaction would still let reach outside the database (files,
   * programs, other servers), act on other sessions, or leave state on a pooled connection after
   * the call (locks, variables): throws a ToolError (`invalid_argument`) that names what it refused
   * and why. `policy` is what the operator allows beyond the guard's own judgement (functions by
   * name); a guard that has no use for it ignores it. Every engine with `readOnlyStatement` has
   * one; the sql tool calls it first.
   */
  readonly sqlGuard?: (db: AnyDb, text: string, policy: SqlPolicy) => Promise<void> | void;

  /**
   * Opens the `sql` tool's own connections: a bounded pool that no other tool uses, read-only,
   * each session reset after every call, so nothing a caller's statement does to its session
   * (prepared statements, settings, locks, a terminated backend) reaches another call's answer.
   * `main` is the connection the other tools use: an engine with a single connection (PGlite, a
   * SQLite memory database) shares it, and resets it after each statement instead. Every engine
   * with `readOnlyStatement` has one; the server runs the sql tool's statements with
   * `readOnlyStatement` on the connection this returns.
   */
  readonly connectSql?: (url: string, options: SqlConnectOptions, main: Connection) => Promise<Connection>;

  /**
   * Reads, at start-up, the connecting user's rights beyond what the server needs (FILE, SUPER,
   * superuser, sysadmin, the server-file roles ...): a warning, and with `--sql` a refusal to
   * start. Asked of the sql tool's connections, it reads the rights of the role they take (see
   * SqlConnectOptions.role). Absent where users have no rights to speak of (an embedded engine).
   */
  readonly excessRights?: (db: AnyDb) => Promise<ExcessRights | undefined>;

  /**
   * The statements an administrator runs to create a login with only the rights this server
   * needs on the database `db` is connected to (read, or read and write): shown when a login with
   * excess rights is refused. `login` names the login to create; its password is a placeholder.
   */
  readonly leastPrivilege?: (db: AnyDb, options: { login: string; writes: boolean }) => Promise<string[]>;

  /**
   * Warnings, at start-up with `--sql`, of what the sql tool's sessions (`db`) may do that only the
   * database's own settings bound, and that are not set (PostgreSQL: temp_file_limit). Absent: none.
   */
  readonly sqlWarnings?: (db: AnyDb) => Promise<string[]>;

  /**
   * The server's version and the settings that decide a benchmark's result (buffer pool, cache,
   * JIT ...), as a new connection sees them: the result file records them. Absent: none recorded.
   */
  readonly settings?: (db: AnyDb) => Promise<EngineSettings>;

  /**
   * Whether the database can be open in one process at a time (an embedded engine with no
   * lock manager): while our server has it open, nothing else may open it, so whatever needs
   * a second connection beside the server (re-indexing between rounds, raw-driver lookups)
   * cannot run. Default false.
   */
  readonly oneProcess: boolean;

  /** Whether the engine can cancel a running statement (`statementTimeoutMs`). Default true. */
  readonly cancelsStatements: boolean;

  /** How the dataset is created and streamed in: the engine's fastest bulk path. */
  readonly bulk: BulkLoader;
}

/** Rights the connecting user holds beyond what the server needs. */
export interface ExcessRights {
  /** the user as the database names it */
  user: string;
  /** the rights, as the database names them: `FILE`, `superuser`, `pg_read_server_files` */
  rights: string[];
}

/** A column as a bulk load declares it: the dataset's columns fit this shape. */
export interface BulkColumn {
  name: string;
  type: PortableType;
  /** text: maximum length; decimal: precision */
  size?: number;
  /** decimal: digits after the point */
  scale?: number;
  /** a foreign key to another table's `id` */
  references?: string;
  /** the database generates it on insert (identity / auto-increment) */
  generated?: boolean;
}

export interface BulkTable {
  name: string;
  columns: readonly BulkColumn[];
}

/** One row, values in column order, as the dataset generates them. */
export type BulkRow = (string | number | boolean | null)[];

/**
 * An engine's bulk path: how columns are declared and how rows reach a table fastest (COPY,
 * LOAD DATA, a prepared statement in one transaction, batches).
 */
export interface BulkLoader {
  /** the column's type in CREATE TABLE */
  columnType(column: BulkColumn): string;
  /**
   * Whether foreign keys are declared in CREATE TABLE (and the load runs with checks off) or
   * added after loading, when one validating pass is cheaper than a check per row.
   */
  readonly foreignKeys: 'inline' | 'after';
  /** Adds a table's foreign-key constraints after loading. Default: one ALTER TABLE per constraint. */
  addForeignKeys?(connection: Connection, table: BulkTable, constraints: RawBuilder<unknown>[]): Promise<void>;
  /**
   * Streams every row of a table in, over a connection opened with `inProcess`; `rows` yields
   * batches lazily (the loader may change their values); `progress` gets row counts.
   */
  load(
    connection: Connection,
    table: BulkTable,
    rows: Iterable<BulkRow[]>,
    progress: (rows: number) => void,
  ): Promise<void>;
  /** Statements that refresh the planner's statistics after a load. */
  analyze(table: string): string[];
  /** Drops an index if it exists. */
  dropIndex(name: string, table: string): string;
}
