import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { missingServingFlags } from '../heap.js';
import { prometheusWorkerEnv } from '../telemetry/prometheus.js';
import { availableCores } from './cpu-quota.js';
import { readyLine } from './ready.js';
import { type SessionLimits, type SessionNews, Sessions } from './sessions.js';

/**
 * The key every worker of one server signs its session ids with (see sessions.ts): the
 * `--session-key` option's variable, so a worker reads it like any other option.
 */
const SESSION_KEY_VARIABLE = 'MCP_DB_SESSION_KEY';

/** Whether the command line or the environment gives the session key (else the primary makes one). */
function sessionKeyGiven(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  return (
    Boolean(env[SESSION_KEY_VARIABLE]) || argv.some((a) => a === '--session-key' || a.startsWith('--session-key='))
  );
}

/** What `--workers` asks for: a count, or `auto` (the default over HTTP: one per core but one, see autoWorkerCount). */
export type WorkersOption = number | 'auto';

/**
 * `--workers` as given on the command line or in MCP_DB_WORKERS (the last one wins, as
 * commander reads it), `auto` when absent. Read from the arguments directly so the primary can
 * start without loading the server; the workers parse and validate everything.
 */
export function workersOption(argv: readonly string[], env: NodeJS.ProcessEnv): WorkersOption | undefined {
  let given = env.MCP_DB_WORKERS;
  argv.forEach((a, i) => {
    if (a === '--workers') given = argv[i + 1];
    else if (a.startsWith('--workers=')) given = a.slice('--workers='.length);
  });
  if (given === undefined || given === 'auto') return 'auto';
  const n = Number(given);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The `--url` values as given (every --url or --db, else MCP_DB_URL); empty when none names one. */
function urlOptions(argv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const given: string[] = [];
  argv.forEach((a, i) => {
    if ((a === '--url' || a === '--db') && argv[i + 1] !== undefined) given.push(argv[i + 1]!);
    else if (/^--(url|db)=/.test(a)) given.push(a.slice(a.indexOf('=') + 1));
  });
  if (given.length) return given;
  return env.MCP_DB_URL ? [env.MCP_DB_URL] : [];
}

/**
 * What the --config file (or MCP_DB_CONFIG) says of serving: http, workers and the URL. Loaded only
 * when one is named; undefined for a file with mistakes: one process starts, and reports them.
 */
async function fileOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ http?: unknown; workers?: unknown; urls: string[] } | undefined> {
  let file = env.MCP_DB_CONFIG;
  argv.forEach((a, i) => {
    if (a === '--config') file = argv[i + 1];
    else if (a.startsWith('--config=')) file = a.slice('--config='.length);
  });
  const fallback = env.DATABASE_URL ? [env.DATABASE_URL] : [];
  if (!file) return { urls: fallback };
  const { loadConfig } = await import('../config/load.js');
  try {
    const config = loadConfig(file, env);
    return { ...config.options, urls: config.urls.length ? config.urls : fallback };
  } catch {
    return undefined;
  }
}

/**
 * How many processes serve HTTP: 0 when this one does not (stdio, help, the version, a config
 * file with mistakes), 1 for this process alone, more for a `--workers` primary. `auto` means
 * autoWorkerCount(), or one process where the URL's engine can be open in one process at a time
 * (PGlite); a bad value is left to the server's own parsing, which says what is wrong.
 */
export async function requestedWorkers(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  // --stdio serves one host from this process, whatever MCP_DB_HTTP says
  if (argv.some((a) => ['-h', '--help', '-V', '--version', '--stdio'].includes(a))) return 0;
  const file = await fileOptions(argv, env);
  if (!file) return 0;
  const http =
    argv.includes('--http') ||
    (env.MCP_DB_HTTP !== undefined ? !/^(0|false|no|off)?$/i.test(env.MCP_DB_HTTP) : file.http === true);
  const given = argv.some((a) => a === '--workers' || a.startsWith('--workers=')) || env.MCP_DB_WORKERS !== undefined;
  const workers = given ? workersOption(argv, env) : ((file.workers as WorkersOption | undefined) ?? 'auto');
  if (!http || workers === undefined) return 0;
  const urls = urlOptions(argv, env);
  const n = workers === 'auto' ? await autoWorkers(urls.length ? urls : file.urls) : workers;
  return n;
}

/**
 * Worker processes for `--workers auto` on `cores` cores (by default those this process may use,
 * a CPU quota's worth in a container that has one): one per core but one, at least one. A
 * worker keeps more than its own core busy (V8's collector threads, libuv's pool), and a database
 * or agents on the same machine need cores too: measured on 2 cores with the database and the load
 * beside it, a second worker lowered calls/s at 1, 10 and 50 agents on every engine (SQLite too)
 * and spent up to twice the CPU per call (docs/performance.md#how-many-workers).
 */
export function autoWorkerCount(cores: number = availableCores()): number {
  return Math.max(1, cores - 1);
}

/**
 * `--workers auto`: autoWorkerCount(), one where a database's engine allows only one process
 * (or a value is not understood: the server reports that).
 */
export async function autoWorkers(values: readonly string[]): Promise<number> {
  const workers = autoWorkerCount();
  if (workers === 1 || !values.length) return 1;
  // Loaded only here: the engines' definitions, not their drivers.
  const { engineForUrl } = await import('@mcp-db-bench/engines');
  const { splitDatabaseUrl } = await import('../database-urls.js');
  try {
    return values.some((value) => engineForUrl(splitDatabaseUrl(value).url).oneProcess) ? 1 : workers;
  } catch {
    return 1;
  }
}

/**
 * Multi-core HTTP serving: the primary forks `workers` copies of this process, each with its own
 * database connection(s) and its own listener on the shared port (the primary hands connections
 * out round-robin). Correct because no answer depends on which worker gives it: the modern era
 * is stateless by design, and a 2025-era session id issued by one worker is honoured by all
 * (signed with the given `--session-key`, or else a random key the primary hands every worker;
 * the sessions used and ended on one are told to all, which relays: see Sessions.share).
 *
 * Resolves once the primary has been told to stop and every worker has exited.
 */
export function servePrimary(workers: number, log: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    let announced = false;
    const listening = new Set<Worker>();
    cluster.setupPrimary({ execArgv: [...process.execArgv, ...missingServingFlags()] });
    const key = sessionKeyGiven(process.argv.slice(2), process.env)
      ? {}
      : { [SESSION_KEY_VARIABLE]: randomBytes(32).toString('hex') };
    // Per slot: replacements in a row that exited before they listened (see restartDelayMs).
    const failedStarts = new Map<number, number>();
    const pending = new Set<NodeJS.Timeout>();
    // A worker's slot (0 to workers - 1) gives it its own Prometheus port; its replacement takes the same one.
    const fork = (slot: number) => {
      const worker = cluster.fork({ ...key, ...prometheusWorkerEnv(process.env, slot) });
      let listened = false;
      worker.on('message', (message: { listening?: string; sessions?: SessionNews }) => {
        if (message.sessions) {
          for (const w of Object.values(cluster.workers ?? {})) if (w && w !== worker) w.send(message);
          return;
        }
        if (!message.listening) return;
        listened = true;
        if (failedStarts.delete(slot) && announced) log(`worker ${worker.process.pid} listens again`);
        listening.add(worker);
        // The first worker proved the options and the database good: start the others.
        if (listening.size === 1 && !announced) for (let i = 1; i < workers; i++) fork(i);
        if (!announced && listening.size === workers) {
          announced = true;
          log(readyLine(message.listening, workers));
        }
      });
      worker.once('exit', (code, signal) => {
        listening.delete(worker);
        if (stopping) {
          if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
          return;
        }
        // Before every worker is up a crash is a start-up error (a bad URL): give up, do not loop.
        if (!announced) {
          stopping = true;
          for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
          process.exitCode = code || 1;
          if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
          return;
        }
        const failures = listened ? 0 : (failedStarts.get(slot) ?? 0) + 1;
        if (failures) failedStarts.set(slot, failures);
        const delay = restartDelayMs(failures);
        const what = listened ? 'exited' : 'exited before it listened';
        log(
          `worker ${worker.process.pid} ${what} (${signal ?? code}); starting another${delay ? ` in ${delay} ms` : ''}`,
        );
        const timer = setTimeout(() => {
          pending.delete(timer);
          fork(slot);
        }, delay);
        pending.add(timer);
      });
    };
    // One worker first: a start-up error (a bad option, an unreachable database) is then printed
    // once, by that worker, instead of once per core.
    fork(0);
    const stop = () => {
      stopping = true;
      for (const timer of pending) clearTimeout(timer);
      for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
      if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/**
 * How long the primary waits before replacing a worker: at once after one that served, and after
 * `failures` replacements in a row that exited before they listened (the database down, a port
 * taken), 100 ms doubling up to 30 s, so a fault that outlasts it costs a start every 30 s
 * instead of a fork loop. The slot is retried for as long as the server runs: the fault may pass.
 */
export function restartDelayMs(failures: number): number {
  return failures === 0 ? 0 : Math.min(30_000, 100 * 2 ** (failures - 1));
}

/** Whether this process is a worker forked by {@link servePrimary}. */
export const isWorker = (): boolean => cluster.isWorker;

/** A worker tells the primary it listens (the primary announces once all do). */
export function reportListening(endpoint: string): void {
  process.send?.({ listening: endpoint });
}

/**
 * A worker's session table: ids signed with the server's shared key (`--session-key`, set by the
 * primary when not given), and the sessions used and ended here told to the other workers
 * through the primary, so every worker keeps the same table (see Sessions.share).
 */
export function workerSessions(limits: SessionLimits, key: Buffer): Sessions {
  const sessions = new Sessions(limits, key);
  sessions.share((news) => process.send?.({ sessions: news }));
  process.on('message', (message: { sessions?: SessionNews }) => {
    if (message?.sessions) sessions.heard(message.sessions);
  });
  return sessions;
}
