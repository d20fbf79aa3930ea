import { type ChildProcess, fork } from 'node:child_process';
import type { Statements } from '../calls.js';
import type { Reply, WorkerOptions } from './worker.js';

const WORKER_PATH = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);

/**
 * Runs caller-written SQL in a child process that opens the file read-only. Unlike our own
 * single-table statements, such SQL can run without end (a cross join, a recursive CTE), and
 * better-sqlite3 cannot interrupt a statement: only ending the process stops it at once.
 * Calls take turns; a timed-out process is killed and the next call starts a new one, and so is
 * the process of a call whose client left, or of a closing server (`statements`).
 */
export class SqlProcess {
  #child?: ChildProcess;
  #ready?: Promise<void>;
  #queue: Promise<unknown> = Promise.resolve();
  #next = 0;

  constructor(
    private readonly options: WorkerOptions,
    private readonly timeoutMs: number,
    private readonly statements: Statements,
  ) {}

  run(sql: string, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> {
    const turn = this.#queue.then(() => this.statements.observe(sql, () => this.#run(sql, parameters)));
    this.#queue = turn.catch(() => {});
    return turn;
  }

  /**
   * Kills the process; settles once it has exited, so that a server closing reaps it before it
   * exits itself (a child left to be reaped by the init of a container may stay a zombie).
   */
  close(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    return exited;
  }

  async #run(sql: string, parameters: readonly unknown[]): Promise<Record<string, unknown>[]> {
    // A call whose client left while it waited for its turn, or for a new process, gives the turn up.
    this.statements.check();
    const child = await this.#start();
    this.statements.check();
    const id = ++this.#next;
    const running = this.statements.start(() => this.close());
    const reply = await new Promise<Reply>((resolve, reject) => {
      const onMessage = (message: Reply) => {
        if (message.id !== id) return;
        done();
        resolve(message);
      };
      const onExit = () => {
        done();
        reject(Object.assign(new Error('the SQLite query process ended unexpectedly'), { code: 'SQLITE_IOERR' }));
      };
      const timer =
        this.timeoutMs > 0
          ? setTimeout(() => {
              done();
              void this.close();
              reject(
                Object.assign(new Error(`the statement ran longer than ${this.timeoutMs} ms and was stopped`), {
                  code: 'SQLITE_INTERRUPT',
                }),
              );
            }, this.timeoutMs)
          : undefined;
      const done = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send({ id, sql, parameters });
    }).finally(() => this.statements.end(running));
    if ('error' in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply.rows as Record<string, unknown>[];
  }

  #start(): Promise<ChildProcess> {
    if (this.#child && this.#child.exitCode === null && this.#ready) return this.#ready.then(() => this.#child!);
    const child = fork(WORKER_PATH, [], {
      serialization: 'advanced', // BigInt and binary values survive the trip
      env: { ...process.env, MCP_DB_SQLITE_WORKER: JSON.stringify(this.options) },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    this.#child = child;
    this.#ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) =>
        reject(
          Object.assign(new Error(`the SQLite query process could not start (exit ${code})`), {
            code: 'SQLITE_CANTOPEN',
          }),
        ),
      );
    });
    this.#ready.catch(() => {});
    return this.#ready.then(() => child);
  }
}
