import { availableCores } from './cpu-quota.js';

/**
 * Keeps the event loop turning while a client that comes straight back (a benchmark, an agent's
 * script calling tools in a loop) has a call in flight, and for a moment after its answer, so that
 * the database's reply and the client's next request are read by a thread that is awake instead
 * of one the kernel, and on a VM the hypervisor, must wake first. On a 2-core VM that wake-up and
 * the cold caches after it cost a lone client about 100 µs a call, more than reading the database
 * did. Go's scheduler does the same: it spins before it parks.
 *
 * Each turn is a `setImmediate`, so libuv polls its sockets without blocking and whatever arrives
 * is handled in that turn. It runs only while at most one call is in flight in this process (with
 * more, the loop has work anyway) and only for a client that came back within twice the window
 * last time: an agent that thinks for seconds between calls never starts it. A call that waits
 * longer than ten windows for its database is waited for asleep.
 */
export class BusyPoll {
  #until = 0;
  #turning = false;
  #inFlight = 0;

  /** `windowMs`: how long the loop turns after an answer (0: never). */
  constructor(readonly windowMs: number) {}

  /** Whether a client whose request came `gapMs` after its last answer comes straight back. */
  prompt(gapMs: number): boolean {
    return gapMs < 2 * this.windowMs;
  }

  /** A call starts; `prompt`: its client came straight back, so the loop turns while it runs. */
  started(prompt: boolean): void {
    this.#inFlight++;
    if (prompt) this.#turnFor(10 * this.windowMs);
  }

  /** A call ends (after its answer went, or failed). */
  ended(): void {
    this.#inFlight--;
  }

  /** An answer went to a client that came straight back: the loop turns for the window. */
  answered(): void {
    this.#turnFor(this.windowMs);
  }

  #turnFor(ms: number): void {
    // the call that asks may count itself
    if (this.#inFlight > 1) return;
    this.#until = performance.now() + ms;
    if (this.#turning) return;
    this.#turning = true;
    setImmediate(this.#turn);
  }

  readonly #turn = (): void => {
    if (performance.now() < this.#until) setImmediate(this.#turn);
    else this.#turning = false;
  };
}

/** The window of `--busy-poll auto` where it polls: a lone client's next request comes within it on loopback. */
export const BUSY_POLL_US = 100;

/**
 * `--busy-poll auto`, in µs: the window where the process has a core to spare, 0 on one core.
 * There, polling would take the one core from everything else that runs on it (the database, the
 * process's own GC and compiler threads) and, under a CPU quota of one core, spend the quota.
 */
export function autoBusyPollUs(cores = availableCores()): number {
  return cores >= 2 ? BUSY_POLL_US : 0;
}
