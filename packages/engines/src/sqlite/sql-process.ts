import { type ChildProcess, fork } from 'node:child_process';
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type { Statements } from '../calls.js';
import type { Reply, WorkerOptions } from './worker.js';

const WORKER_PATH = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/** The error a statement gets when its process ends under it, in the shape better-sqlite3 would give (errors.ts). */
const ended = () => Object.assign(new Error('the SQLite query process ended unexpectedly'), { code: 'SQLITE_IOERR' });

/**
 * One connection for caller-written SQL: a child process that opens the file (read-only, see
 * connect.ts), one of a pool (worker-pool.ts with `processes`). Unlike our own single-table
 * statements, such SQL can run without end (a cross join, a recursive CTE), and better-sqlite3
 * cannot interrupt a statement: only ending the process stops it at once. A statement past the
 * timeout kills the process, and so does its call's client leaving or the server closing
 * (`statements`); the pool then replaces it.
 */
export class SqlProcess implements DatabaseConnection {
  readonly #child: ChildProcess;
  #next = 0;
  #pending?: { id: number; resolve(reply: Reply): void; reject(error: Error): void; timer?: NodeJS.Timeout };
  /** set once the process is gone (killed or crashed) */
  broken = false;
  /** settles when the process has opened its database */
  readonly ready: Promise<void>;

  constructor(
    options: WorkerOptions,
    private readonly timeoutMs: number,
    private readonly statements: Statements,
  ) {
    const child = fork(WORKER_PATH, [], {
      serialization: 'advanced', // BigInt and binary values survive the trip
      env: { ...process.env, MCP_DB_SQLITE_WORKER: JSON.stringify(options) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.#child = child;
    this.ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) =>
        reject(
          Object.assign(new Error(`the SQLite query process could not start (exit ${code})`), {
            code: 'SQLITE_CANTOPEN',
          }),
        ),
      );
    });
    this.ready.catch(() => {});
    child.on('message', (reply: Reply) => {
      const pending = this.#pending;
      if (!pending || pending.id !== reply.id) return;
      this.#pending = undefined;
      clearTimeout(pending.timer);
      pending.resolve(reply);
    });
    child.once('exit', () => this.#fail(ended()));
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.statements.observe(query.sql, () => this.#execute<R>(query));
  }

  async #execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.broken) throw ended();
    const id = ++this.#next;
    const running = this.statements.start(() => this.close());
    let reply: Reply;
    try {
      reply = await new Promise<Reply>((resolve, reject) => {
        const timer =
          this.timeoutMs > 0
            ? setTimeout(
                () =>
                  this.#fail(
                    Object.assign(new Error(`the statement ran longer than ${this.timeoutMs} ms and was stopped`), {
                      code: 'SQLITE_INTERRUPT',
                    }),
                  ),
                this.timeoutMs,
              )
            : undefined;
        this.#pending = { id, resolve, reject, timer };
        this.#child.send({ id, sql: query.sql, parameters: query.parameters });
      });
    } finally {
      this.statements.end(running);
    }
    if ('error' in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply as QueryResult<R>;
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; kysely requires the method
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the SQLite query process');
  }

  /** Kills the process (once) and fails the statement it owed with `error`. */
  #fail(error: Error): void {
    if (!this.broken) {
      this.broken = true;
      this.#child.kill('SIGKILL');
    }
    const pending = this.#pending;
    this.#pending = undefined;
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.reject(error);
  }

  /**
   * Kills the process; settles once it has exited, so that a server closing reaps it before it
   * exits itself (a child left to be reaped by the init of a container may stay a zombie).
   */
  close(): Promise<void> {
    const child = this.#child;
    if (child.exitCode !== null || child.signalCode !== null) {
      this.broken = true;
      return Promise.resolve();
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.#fail(ended());
    return exited;
  }
}
