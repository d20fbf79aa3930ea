import { Worker } from 'node:worker_threads';
import { ToolError } from '@mcp-db-bench/contract';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SqliteAdapter,
} from 'kysely';
import { abandoned, type Statements } from '../calls.js';
import { poolWaitExceeded } from '../pool-wait.js';
import { sqliteDialect } from './dialect.js';
import { SqlProcess } from './sql-process.js';
import type { Reply, WorkerOptions } from './worker.js';

// Under the test runner this module is TypeScript, and Node strips the worker's types itself.
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

export interface WorkerPoolOptions extends WorkerOptions {
  /** connections (threads) at most */
  size: number;
  /**
   * Each connection a child process instead of a thread, opened when a call needs one: for
   * caller-written SQL, which only ending its process stops (sql-process.ts).
   */
  processes?: boolean;
  /** a statement still running after this is abandoned and its thread ended; 0 = never */
  statementTimeoutMs: number;
  /** how long a call waits for a free connection before it fails */
  acquireTimeoutMs: number;
}

/** How long a new thread may take to open its database, and how long closing waits for threads. */
const START_TIMEOUT_MS = 10_000;
const CLOSE_WAIT_MS = 2_000;

/** A timed-out statement's error, in the shape better-sqlite3 would give (see errors.ts). */
function interrupted(ms: number): Error {
  return Object.assign(new Error(`the statement ran longer than ${ms} ms and was stopped`), {
    code: 'SQLITE_INTERRUPT',
  });
}

/** One connection: a worker thread and the replies it owes. */
class WorkerConnection implements DatabaseConnection {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(r: Reply): void; reject(e: Error): void; timer?: NodeJS.Timeout }>();
  #next = 0;
  /** what its call's client leaving, or the server closing, does to a statement: what a timeout does */
  readonly #abandon = () => this.#fail(abandoned());
  /** set once the thread is gone (timed out or crashed); the pool then replaces it */
  broken = false;
  /** settles when the thread has opened its database */
  readonly ready: Promise<void>;

  constructor(
    options: WorkerOptions,
    private readonly timeoutMs: number,
    private readonly statements: Statements,
  ) {
    this.#worker = new Worker(WORKER_URL, { workerData: options });
    this.ready = new Promise((resolve, reject) => {
      // A thread that never opens its database must not hold a caller forever.
      const timer = setTimeout(() => {
        this.#fail(
          new ToolError('database_unavailable', `a SQLite worker thread did not start within ${START_TIMEOUT_MS} ms`),
        );
        reject(
          new ToolError('database_unavailable', `a SQLite worker thread did not start within ${START_TIMEOUT_MS} ms`),
        );
      }, START_TIMEOUT_MS);
      this.#worker.once('message', () => {
        clearTimeout(timer);
        resolve();
      });
      this.#worker.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    this.ready.catch(() => {});
    this.#worker.on('message', (reply: Reply) => {
      const waiting = this.#pending.get(reply.id);
      if (!waiting) return;
      this.#pending.delete(reply.id);
      clearTimeout(waiting.timer);
      waiting.resolve(reply);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => this.#fail(new Error('the SQLite worker thread exited')));
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.statements.observe(query.sql, () => this.#execute<R>(query));
  }

  async #execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // After a timeout the transaction died with its thread: there is nothing left to roll back.
    if (this.broken && query.sql === 'rollback') return { rows: [] };
    if (this.broken) throw interrupted(this.timeoutMs);
    const id = ++this.#next;
    const running = this.statements.start(this.#abandon);
    let reply: Reply;
    try {
      reply = await new Promise<Reply>((resolve, reject) => {
        const timer =
          this.timeoutMs > 0 ? setTimeout(() => this.#fail(interrupted(this.timeoutMs)), this.timeoutMs) : undefined;
        this.#pending.set(id, { resolve, reject, timer });
        this.#worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
      });
    } finally {
      this.statements.end(running);
    }
    if ('error' in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply as QueryResult<R>;
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; kysely requires the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the SQLite worker pool');
  }

  /**
   * Ends the thread and fails what it owed; the pool replaces it. better-sqlite3 has no
   * interrupt: the thread stops only when its statement hands its rows back to JavaScript, and
   * keeps a core busy until then (caller-written SQL, which can run without end, runs in a
   * process instead, see sql-process.ts).
   */
  #fail(error: Error): void {
    if (!this.broken) {
      this.broken = true;
      this.#worker.terminate().catch(() => {});
    }
    for (const { reject, timer } of this.#pending.values()) {
      clearTimeout(timer);
      reject(error);
    }
    this.#pending.clear();
  }

  close(): Promise<number> {
    this.broken = true;
    return this.#worker.terminate();
  }
}

/** A connection of the pool: a thread, or a process (WorkerPoolOptions.processes). */
type Pooled = WorkerConnection | SqlProcess;

/** A bounded pool of worker connections; callers queue for one, for a bounded time. */
export class SqliteWorkerDriver implements Driver {
  readonly #idle: Pooled[] = [];
  readonly #all = new Set<Pooled>();
  #destroyed = false;
  readonly #waiting: {
    resolve(c: Pooled): void;
    reject(e: Error): void;
    timer: NodeJS.Timeout;
    refused: () => boolean;
  }[] = [];

  constructor(
    private readonly options: WorkerPoolOptions,
    private readonly statements: Statements,
  ) {}

  async init(): Promise<void> {
    if (!this.options.processes) this.#idle.push(await this.#open());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // A call whose client has gone does not wait in the queue, nor keeps a connection it got.
    this.statements.check();
    const connection = await this.statements.acquiring(() => this.#acquire());
    this.statements.held(1);
    if (this.statements.refuses()) {
      await this.releaseConnection(connection);
      throw abandoned();
    }
    return connection;
  }

  async #acquire(): Promise<Pooled> {
    let idle = this.#idle.pop();
    while (idle?.broken) {
      this.#all.delete(idle);
      idle = this.#idle.pop();
    }
    if (idle) return idle;
    if (this.#all.size < this.options.size) return await this.#open();
    return new Promise((resolve, reject) => {
      const entry = {
        resolve,
        reject,
        refused: this.statements.refusal(),
        timer: setTimeout(() => {
          this.#waiting.splice(this.#waiting.indexOf(entry), 1);
          reject(poolWaitExceeded());
        }, this.options.acquireTimeoutMs),
      };
      this.#waiting.push(entry);
    });
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.statements.held(-1);
    // Waiters whose clients have gone leave now, before a thread is started for them.
    while (this.#waiting[0]?.refused()) {
      const gone = this.#waiting.shift()!;
      clearTimeout(gone.timer);
      gone.reject(abandoned());
    }
    const next = connection as Pooled;
    if (next.broken) {
      this.#all.delete(next);
      // A thread ended by a timeout or a client leaving is replaced now, in the background: the
      // caller's answer does not wait for it, and the next call finds a thread ready. A process
      // is replaced only for a call that waits: the next one opens its own.
      if (!this.#destroyed && (!this.options.processes || this.#waiting.length)) void this.#replace();
      return;
    }
    const waiter = this.#waiting.shift();
    if (!waiter) return void this.#idle.push(next);
    clearTimeout(waiter.timer);
    waiter.resolve(next);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Take the write lock now: two deferred transactions that both go on to write would deadlock.
    await connection.executeQuery({ sql: 'begin immediate', parameters: [] } as unknown as CompiledQuery);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'commit', parameters: [] } as unknown as CompiledQuery);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery({ sql: 'rollback', parameters: [] } as unknown as CompiledQuery);
  }

  async destroy(): Promise<void> {
    this.#destroyed = true;
    for (const w of this.#waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new ToolError('database_unavailable', 'the database is closing'));
    }
    // A thread still inside a statement ends only when the statement does: do not wait for it.
    const closed = Promise.all([...this.#all].map((c) => c.close()));
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    this.#all.clear();
    this.#idle.length = 0;
  }

  async #replace(): Promise<void> {
    let connection: Pooled;
    try {
      connection = await this.#open();
    } catch (error) {
      // No thread: the first waiter learns why (the others wait for another release, or time out).
      const waiter = this.#waiting.shift();
      clearTimeout(waiter?.timer);
      waiter?.reject(error as Error);
      return;
    }
    await this.releaseConnection(connection);
  }

  async #open(): Promise<Pooled> {
    const { processes, statementTimeoutMs } = this.options;
    const connection = processes
      ? new SqlProcess(this.options, statementTimeoutMs, this.statements)
      : new WorkerConnection(this.options, statementTimeoutMs, this.statements);
    this.#all.add(connection);
    try {
      await connection.ready;
    } catch (error) {
      this.#all.delete(connection);
      throw error;
    }
    return connection;
  }
}

/** Several connections may run at once: each is its own thread. */
class PooledSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** `statements`: where each statement is tracked, so that a call's client leaving or closing ends its thread. */
export function workerPoolDialect(options: WorkerPoolOptions, statements: Statements): Dialect {
  return sqliteDialect(
    () => new SqliteWorkerDriver(options, statements),
    () => new PooledSqliteAdapter(),
  );
}
