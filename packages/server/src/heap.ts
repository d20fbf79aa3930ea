import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection before
 * it collects again. Left alone, a busy server's factor climbs toward 4 (V8 judges collection
 * cheap next to the work): at 50 agents one process held 120 MB of heap pages for about 30 MB
 * in use. 50% held the whole process to 158 MB at the same calls/s (README, "Memory under
 * load"). V8 reads the flag at every collection, so setting it at start-up reaches every
 * isolate of the process, however the server was started.
 */
const HEAP_GROWING_PERCENT = 50;

/** Applies {@link HEAP_GROWING_PERCENT} unless the node command line chose its own. */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent')))
    return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}

/**
 * Node flags for every process that serves HTTP: the one process, or each `--workers` worker.
 * - A bounded young generation, 8 MB semi-spaces: a request's garbage dies young, so memory stays
 *   low (left alone V8 grows it to 128 MB). Not smaller: at 50 agents on 10 pooled connections
 *   the calls waiting for a connection outlive 2 MB semi-spaces' scavenges and are promoted
 *   (MariaDB filtered reads: 62 against 15 µs of collection a call, 365 against 193 µs of CPU).
 * - No memory reducer: after about 8 s without allocating, V8 runs collections that give memory
 *   back, and they throw away the optimized code, so a server that paused between bursts of
 *   calls spent about 1.5x the CPU per call on the next ones while it compiled again
 *   (docs/performance.md#a-pause-keeps-the-compiled-code). The small young generation is most
 *   of what the reducer would give back.
 * V8 reads both when it sets up the heap, so they must be on the node command line.
 */
export const SERVING_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--no-memory-reducer'];

/** A V8 flag's name, as `--no-x`, `--x=1` and `--x_y` all name it. */
const flagName = (arg: string): string =>
  arg
    .replace(/^--(no-)?/, '')
    .split('=')[0]!
    .replaceAll('_', '-');

/**
 * The serving flags that neither the node command line nor NODE_OPTIONS sets, either way: a
 * flag the user gave wins.
 */
export function missingServingFlags(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): string[] {
  const given = new Set(
    [...execArgv, ...(nodeOptions?.split(/\s+/) ?? [])].filter((a) => a.startsWith('--')).map(flagName),
  );
  return SERVING_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/**
 * Restarts this process in place with the serving flags its command line lacks: execve keeps
 * the pid and the standard streams, and nothing has been opened yet. Returns, having changed
 * nothing, when none are missing or this Node.js cannot (Windows, versions before 22.15): the
 * server then runs as started.
 */
export function execWithServingFlags(): void {
  const missing = missingServingFlags();
  if (!missing.length || typeof process.execve !== 'function') return;
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...missing, ...process.argv.slice(1)]);
  } catch {
    // e.g. a sandbox that forbids exec: serve as started
  }
}
