import cluster, { type Worker } from 'node:cluster';

/**
 * Multi-core HTTP serving: the primary forks `workers` copies of this process, each with its own
 * database connection(s) and its own listener on the shared port (the primary hands connections
 * out round-robin). Correct because serving is stateless in both eras: the modern era by design,
 * the 2025 era through the SDK's stateless fallback (no session lives in a worker).
 *
 * Resolves once the primary has been told to stop and every worker has exited.
 */
export function servePrimary(workers: number, log: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    let announced = false;
    const listening = new Set<Worker>();
    const fork = () => {
      const worker = cluster.fork();
      worker.on('message', (message: { listening?: string }) => {
        if (!message.listening) return;
        listening.add(worker);
        if (!announced && listening.size === workers) {
          announced = true;
          log(`listening on ${message.listening} (${workers} worker processes)`);
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
        log(`worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
        fork();
      });
    };
    for (let i = 0; i < workers; i++) fork();
    const stop = () => {
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
      if (Object.keys(cluster.workers ?? {}).length === 0) resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Whether this process is a worker forked by {@link servePrimary}. */
export const isWorker = () => cluster.isWorker;

/** A worker tells the primary it listens (the primary announces once all do). */
export function reportListening(endpoint: string): void {
  process.send?.({ listening: endpoint });
}
