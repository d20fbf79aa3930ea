import type { CompiledQuery, RawBuilder } from 'kysely';
import type { AnyDb } from '../engine.js';

/**
 * Where the test suites find this engine, and how they make an empty database on it. An
 * embedded engine (no `env`) is always tested; a server is tested where its URL is set.
 */
export interface TestDatabases {
  /** the environment variable holding a URL of the server's maintenance database */
  readonly env?: string;
  /** CI (CI=true) fails instead of skipping when `env` (or `adminEnv`) is unset */
  readonly requiredInCi?: boolean;
  /**
   * the variable holding a URL of the same server as a privileged user (superuser, FILE), for the
   * tests that must show the sql tool refusing what the database itself would allow
   */
  readonly adminEnv?: string;
  /** Creates (or re-creates) an empty database called `name`; `baseUrl` is `env`'s URL, or `NAME:` for embedded engines. */
  fresh(baseUrl: string, name: string): Promise<string>;
}

/** The column kinds of the test suites' small shop fixture (server test/support/shop.ts). */
export type ShopColumnType = 'int' | 'bigint' | 'text100' | 'text20' | 'bool' | 'money' | 'ts';

/**
 * The SQL the shared test suites write for a family, so that a suite holds no per-family table:
 * fixture DDL, statements that run long or hold a connection, and how another session sees the
 * server's. Absent where the family has no such statement; the suites skip what needs it.
 */
export interface TestFacts {
  /** the shop fixture's column types */
  readonly shopTypes: Readonly<Record<ShopColumnType, string>>;
  /**
   * `create table notes (id <generated key>, customer_id integer, body varchar(100) not null,
   * n integer not null default 0)`
   */
  readonly notesTable: string;
  /** the parity fixture's tables and view (fixtures/parity: the rows are shared), statements ending a line with `;` */
  readonly paritySchema: string;
  /** Statements that run for many seconds. */
  readonly slow?: {
    /** for the sql tool: runs 30 s (SQLite: far longer) */
    readonly statement: string;
    /** a view `slow_view` whose every read runs 30 s, for the read tools (SQLite: half a second or so of counting) */
    readonly view: string;
    /**
     * which of either the server runs now in this database, seen from another session (a row each,
     * saying what runs and for how long): other suites run theirs in their own databases at the same
     * time; absent: no process list
     */
    readonly running?: string;
  };
  /** `create view slow_view as ...` whose every read takes 1.5 s */
  readonly shortSlowView?: string;
  /**
   * For the sql tool: an answer of about `mib` MiB of text, made by the database, in one value
   * where the engine holds one that large (MariaDB stops a value at max_allowed_packet: rows of 8 MiB);
   * `running`: that statement, if it still runs, seen from another session (absent: no process list)
   */
  readonly largeAnswer?: { readonly statement: (mib: number) => string; readonly running?: string };
  /** a select that holds its connection for `seconds` */
  readonly sleep?: (seconds: number) => RawBuilder<unknown>;
  /**
   * The MCP server's sessions in this database, seen from another session: all of them (`total`)
   * and those running a statement (`busy`), the asking session left out.
   */
  readonly sessions?: RawBuilder<{ total: unknown; busy: unknown }>;
  /** how many of the server's `update ... customers` wait for a row lock, seen from another session (column `n`) */
  readonly waitingWrite?: string;
  /** what `excessRights` asks (matched against the statements it sends) and finds on a privileged user */
  readonly excessRights?: { readonly asks: RegExp; readonly ofAdmin?: readonly string[] };
  /** How the guard tests look at the database host and the session from a direct, privileged connection. */
  readonly hostProbe?: HostProbe;
  /** How the family's planner reads a statement, for the tests of the order `query` gives (absent: not checked). */
  readonly plan?: PlanFacts;
}

/**
 * A statement's plan, read from the family's own EXPLAIN (its parameters bound): what costs in it.
 * The server's index-order-plans.test.ts checks with it that the order `query` gives without
 * `order_by` adds no scan or sort to the statement without an order.
 */
export interface PlanFacts {
  read(db: AnyDb, query: CompiledQuery): Promise<PlanReading>;
  /**
   * Whether a secondary index's entries end with the table's key, so an index serves "its columns,
   * then the key" with no sort (SQLite's tables keyed by an integer rowid, InnoDB). Where they do
   * not (PostgreSQL: ties in heap order), the rows an index reads that tie on its columns are sorted.
   */
  readonly keyEndsIndex: boolean;
}

export interface PlanReading {
  /** each table read whole, by the name or alias the statement gives it: a full scan of it or of one of its indexes */
  readonly scans: readonly string[];
  /** the sorts the plan makes */
  readonly sorts: number;
  /** the plan as the engine printed it, one step a line, for messages */
  readonly text: string;
}

/** A server family's view of its host and sessions, for the sql guard's tests. */
export interface HostProbe {
  /** writes a small file at the path (the control: a privileged user can) */
  writeFile(path: string): RawBuilder<unknown>;
  /** whether a file exists at the path, as the database host sees it (one row, column `present`) */
  fileExists(path: string): RawBuilder<{ present: unknown }>;
  /** session-level locks held in this database (one row, column `n`) */
  locksHeld(): RawBuilder<{ n: unknown }>;
  /** DDL of a function `take_lock()` the database defines, which takes a session lock out of the guard's sight */
  readonly lockingFunction: readonly string[];
  /** a statement that answers the id of the connection it runs on (column `id`) */
  readonly connectionId: string;
  /** a statement the guard must refuse that only this family has (a long one, say); absent: none */
  readonly extraHostile?: { readonly text: string; readonly names: string };
}

/**
 * An engine's test facts: what the shared suites write in its SQL, and how they get an empty
 * database of it (absent: tested through another engine's server).
 */
export interface EngineTesting {
  readonly facts: TestFacts;
  readonly databases?: TestDatabases;
}
