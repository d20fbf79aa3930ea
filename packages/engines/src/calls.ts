import { AsyncLocalStorage } from 'node:async_hooks';
import { ToolError } from '@mcp-db-bench/contract';
import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/**
 * Stops one running statement inside the database, each engine its own way: a PostgreSQL cancel
 * request, KILL QUERY, ending a SQLite thread or process, a SQL Server attention. It settles once
 * the database has been told (or telling it failed), within a few seconds.
 */
export type Cancel = () => Promise<void> | void;

/**
 * A tool call whose client may go away: the transport says how to tell. It is listened to only
 * while one of the call's statements runs, so a call that runs none (a cached answer, a short
 * SQLite read on the event loop) costs this object and nothing more.
 */
export abstract class Call {
  #running: Running[] | undefined;
  #onGone: (() => void) | undefined;

  /** Whether the client has gone (asked of the transport itself, so it is true at once). */
  abstract get gone(): boolean;
  protected abstract listen(onGone: () => void): void;
  protected abstract unlisten(onGone: () => void): void;

  add(running: Running): void {
    this.#running ??= [];
    if (this.#running.push(running) > 1) return;
    this.#onGone ??= () => {
      for (const r of this.#running ?? []) r.cancel();
    };
    this.listen(this.#onGone);
  }

  remove(running: Running): void {
    const all = this.#running!;
    all.splice(all.indexOf(running), 1);
    if (all.length === 0) this.unlisten(this.#onGone!);
  }
}

const exchanges = new AsyncLocalStorage<AbortSignal>();

/**
 * A call whose client going away aborts a signal: the SDK's (a stdio `notifications/cancelled`, a
 * closed transport), and the signal of the exchange it was made in (`inExchange`), if any.
 */
export class SignalCall extends Call {
  readonly #signals: AbortSignal[];
  constructor(signal: AbortSignal) {
    super();
    const exchange = exchanges.getStore();
    this.#signals = exchange ? [signal, exchange] : [signal];
  }
  get gone(): boolean {
    return this.#signals.some((signal) => signal.aborted);
  }
  protected listen(onGone: () => void): void {
    for (const signal of this.#signals) signal.addEventListener('abort', onGone);
  }
  protected unlisten(onGone: () => void): void {
    for (const signal of this.#signals) signal.removeEventListener('abort', onGone);
  }
}

/**
 * Runs `work`, one HTTP exchange handed to the SDK, whose client leaving aborts `signal`: the
 * SDK's calls made inside it end then too. The SDK would hear of it only through its web
 * Request's signal, which follows the adapter's through a weak reference (undici), by way of a
 * clone that the SDK drops once it streams its answer: after a garbage collection, the call ran on.
 */
export function inExchange<T>(signal: AbortSignal, work: () => T): T {
  return exchanges.run(signal, work);
}

const calls = new AsyncLocalStorage<Call>();

/** Runs `work` as `call`: the statements it runs, however deep, belong to that call. */
export function inCall<T>(call: Call, work: () => T): T {
  return calls.run(call, work);
}

/** Runs `work` as no call's: shared work (a schema reload) must not end with the call that started it. */
export function outsideCalls<T>(work: () => T): T {
  return calls.exit(work);
}

/** The error of a call refused a connection or a statement because its client left, or the database is closing. */
export function abandoned(): ToolError {
  return new ToolError(
    'database_unavailable',
    'the call was cancelled: its client went away, or the server is closing',
  );
}

/**
 * Before a caller's statement inside a transaction the call already holds: stop here if its client
 * has gone (the transaction then rolls back). Statements outside transactions are checked when they
 * get their connection (`Statements.refuses`).
 */
export function throwIfAbandoned(): void {
  if (calls.getStore()?.gone) throw abandoned();
}

/**
 * Told of the statements an engine runs and its waits for a pooled connection (the server's
 * telemetry, see ConnectOptions.observer). Each hook returns the function to call when it ends.
 */
export interface StatementObserver {
  /** A statement starts: `sql` as compiled, its values bound apart. */
  statement(sql: string): (error?: unknown) => void;
  /** A wait for a pooled connection starts. */
  acquire(): (error?: unknown) => void;
  /**
   * A pooled connection is handed to a call (+1) or given back (-1), or PostgreSQL's read lane takes
   * its first read in flight (+1) or ends its last (-1): the sum is the connections in use.
   */
  held?(change: 1 | -1): void;
}

/** Runs `work` as one statement or wait that `end` is told of. */
async function observed<T>(end: (error?: unknown) => void, work: () => Promise<T>): Promise<T> {
  try {
    const result = await work();
    end();
    return result;
  } catch (error) {
    end(error);
    throw error;
  }
}

/** One statement running on one connection, with the call it belongs to. */
class Running {
  #cancelling: Promise<void> | undefined;
  constructor(
    private readonly stop: Cancel,
    readonly call: Call | undefined,
  ) {}

  /** Cancels it once, whoever asks; never rejects. */
  cancel(): Promise<void> {
    this.#cancelling ??= (async () => {
      try {
        await this.stop();
      } catch {
        // the statement ends at its timeout instead
      }
    })();
    return this.#cancelling;
  }

  get cancelling(): Promise<void> | undefined {
    return this.#cancelling;
  }
}

/** The longest closing waits for cancels to reach the database. */
const CLOSE_WAIT_MS = 3_000;

/**
 * The statements running on one database's connections. A statement is cancelled in the database
 * when the call it belongs to loses its client, or when the database is closed; a call whose client
 * has gone gets no connection. The rule for which statements a gone call still runs: the one running
 * when its client leaves is cancelled; it starts none on a new connection; on a connection it already
 * holds (a transaction) it runs what follows, which is the rollback (see `throwIfAbandoned`). Cleanup
 * that must never be cancelled by a client leaving runs `outsideCalls`.
 */
export class Statements {
  readonly #running = new Set<Running>();
  #closing = false;

  /** `observer`: told of each statement and wait (absent: nothing is observed, at no cost). */
  constructor(readonly observer?: StatementObserver) {}

  /** Runs `work`, the statement `sql`, as the observer's (when there is one). */
  observe<T>(sql: string, work: () => Promise<T>): Promise<T> {
    return this.observer ? observed(this.observer.statement(sql), work) : work();
  }

  /** Runs `work`, a wait for a pooled connection, as the observer's (when there is one). */
  acquiring<T>(work: () => Promise<T>): Promise<T> {
    return this.observer ? observed(this.observer.acquire(), work) : work();
  }

  /** A pooled connection is handed out (+1) or given back (-1), as the observer's (when there is one). */
  held(change: 1 | -1): void {
    this.observer?.held?.(change);
  }

  /** Whether a connection about to be handed to the current call should go back: its client left, or the database is closing. */
  refuses(): boolean {
    return this.#closing || calls.getStore()?.gone === true;
  }

  /** The current call's own test of `refuses()`, to ask later (a wait for a connection). */
  refusal(): () => boolean {
    const call = calls.getStore();
    return () => this.#closing || call?.gone === true;
  }

  /** Throws when `refuses()`. */
  check(): void {
    if (this.refuses()) throw abandoned();
  }

  /** A statement starts: `stop` cancels it. */
  start(stop: Cancel): Running {
    const running = new Running(stop, calls.getStore());
    this.#running.add(running);
    running.call?.add(running);
    return running;
  }

  /**
   * The statement ended. Returns the cancel still reaching the database, if one was sent: its
   * connection must not run another statement before that settles, or the cancel could hit it.
   */
  end(running: Running): Promise<void> | undefined {
    this.#running.delete(running);
    running.call?.remove(running);
    return running.cancelling;
  }

  /**
   * Runs one statement, `sql`, with `stop` as its cancel, settling only once any cancel sent for it has.
   */
  run<T>(stop: Cancel, sql: string, execute: () => Promise<T>): Promise<T> {
    if (!this.observer) return this.#run(stop, execute);
    return observed(this.observer.statement(sql), () => this.#run(stop, execute));
  }

  async #run<T>(stop: Cancel, execute: () => Promise<T>): Promise<T> {
    const running = this.start(stop);
    try {
      return await execute();
    } finally {
      const cancelling = this.end(running);
      if (cancelling) await cancelling;
    }
  }

  /** Closing: no connection for anyone from now on, and every running statement cancelled (waited for, up to a bound). */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#running.size === 0) return;
    const cancels = Promise.all([...this.#running].map((r) => r.cancel()));
    await Promise.race([cancels, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
  }

  /** A database's close: what still runs is cancelled first, then its pool ends. */
  closing(db: { destroy(): Promise<void> }): () => Promise<void> {
    return async () => {
      await this.close();
      await db.destroy();
    };
  }
}

/**
 * A kysely connection's own cancel (`cancelQuery`: MySQL's KILL QUERY, SQL Server's attention),
 * for `cancellableDialect`. It needs the session's id, read now.
 */
export function ownCancel(connection: DatabaseConnection): Cancel {
  connection.collectSessionInfo?.().catch(() => {});
  // The provider would lend a pooled connection to cancel from; the dialects we use open their own.
  return () => connection.cancelQuery?.(async () => {});
}

/**
 * A kysely dialect whose statements are `statements`' (cancelled by `cancelOf(connection)`, made
 * once per connection) and which hands no connection to a call whose client has gone.
 */
export function cancellableDialect(
  dialect: Dialect,
  statements: Statements,
  cancelOf: (connection: DatabaseConnection) => Cancel,
): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => cancellableDriver(dialect.createDriver(), statements, cancelOf),
  };
}

function cancellableDriver(
  driver: Driver,
  statements: Statements,
  cancelOf: (connection: DatabaseConnection) => Cancel,
): Driver {
  const watched = new WeakSet<DatabaseConnection>();
  return {
    init: (options) => driver.init(options),
    async acquireConnection(options) {
      // A call whose client has gone does not wait in the queue, nor keeps a connection it got.
      statements.check();
      const connection = await statements.acquiring(() => driver.acquireConnection(options));
      if (statements.refuses()) {
        await driver.releaseConnection(connection);
        throw abandoned();
      }
      statements.held(1);
      if (!watched.has(connection)) {
        watched.add(connection);
        const execute = connection.executeQuery.bind(connection);
        const cancel = cancelOf(connection);
        connection.executeQuery = (query, options) => statements.run(cancel, query.sql, () => execute(query, options));
      }
      return connection;
    },
    beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
    commitTransaction: (connection) => driver.commitTransaction(connection),
    rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
    releaseConnection: (connection, options) => {
      statements.held(-1);
      return driver.releaseConnection(connection, options);
    },
    destroy: (options) => driver.destroy(options),
    ...(driver.savepoint && {
      savepoint: driver.savepoint.bind(driver),
      rollbackToSavepoint: driver.rollbackToSavepoint?.bind(driver),
      releaseSavepoint: driver.releaseSavepoint?.bind(driver),
    }),
  };
}

/**
 * A kysely dialect whose statements and connection waits `observer` is told of, for an engine
 * that runs them through no `Statements` (PGlite: one connection, nothing to cancel).
 */
export function observedDialect(dialect: Dialect, observer: StatementObserver): Dialect {
  const statements = new Statements(observer);
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => {
      const driver = dialect.createDriver();
      const watched = new WeakSet<DatabaseConnection>();
      return {
        init: (options) => driver.init(options),
        async acquireConnection(options) {
          const connection = await statements.acquiring(() => driver.acquireConnection(options));
          statements.held(1);
          if (!watched.has(connection)) {
            watched.add(connection);
            const execute = connection.executeQuery.bind(connection);
            connection.executeQuery = (query, opts) => statements.observe(query.sql, () => execute(query, opts));
          }
          return connection;
        },
        beginTransaction: (connection, settings) => driver.beginTransaction(connection, settings),
        commitTransaction: (connection) => driver.commitTransaction(connection),
        rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
        releaseConnection: (connection, options) => {
          statements.held(-1);
          return driver.releaseConnection(connection, options);
        },
        destroy: (options) => driver.destroy(options),
        ...(driver.savepoint && {
          savepoint: driver.savepoint.bind(driver),
          rollbackToSavepoint: driver.rollbackToSavepoint?.bind(driver),
          releaseSavepoint: driver.releaseSavepoint?.bind(driver),
        }),
      };
    },
  };
}
