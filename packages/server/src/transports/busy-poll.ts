import { cpus } from 'node:os';
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
 * longer than ten windows for its database is waited for asleep. With a `headroom`, it runs only
 * while the machine has a core to spare (see `Headroom`).
 */
export class BusyPoll {
  #until = 0;
  #turning = false;
  #inFlight = 0;

  /** `windowMs`: how long the loop turns after an answer (0: never); `headroom`: whether it may turn now (absent: always). */
  constructor(
    readonly windowMs: number,
    private readonly headroom?: Headroom,
  ) {}

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
    const now = performance.now();
    if (this.headroom && !this.headroom.spare(now)) return;
    this.#until = now + ms;
    if (this.#turning) return;
    this.#turning = true;
    setImmediate(this.#turn);
  }

  readonly #turn = (): void => {
    const now = performance.now();
    // a client in a tight loop keeps the loop turning for as long as it calls: the machine is asked again as it goes
    if (now < this.#until && (!this.headroom || this.headroom.spare(now))) setImmediate(this.#turn);
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

/** How often the machine's idle time is read while a client asks for polling. */
export const HEADROOM_SAMPLE_MS = 500;

/** Cores that must stay idle beside the one polling takes. */
export const SPARE_CORES = 0.1;

/** CPU time so far: every core's idle time (ms of one core) and this process's own (µs). */
export interface CpuTimes {
  idleMs: number;
  ownUs: number;
}

/** The machine's idle time as the OS counts it for every core (os.cpus), and this process's CPU. */
export function cpuTimes(): CpuTimes {
  let idleMs = 0;
  for (const cpu of cpus()) idleMs += cpu.times.idle;
  const own = process.cpuUsage();
  return { idleMs, ownUs: own.user + own.system };
}

/**
 * Whether polling would take a core that something else on the machine wants. Polling keeps one
 * core busy; on a machine whose cores are all in use (a shared host, a database and its clients
 * beside the server) that core is taken from the database and the client the call waits for: on 2
 * shared cores at a load average of 6, through wrk on one connection, polling cut a PostgreSQL
 * server's calls/s from 2,549 to 1,523 and raised its CPU per call from 190 to 427 µs. So every
 * `HEADROOM_SAMPLE_MS` it asks how much of the machine stayed idle: polling stays on while, beside
 * the core it takes (the part of a core this process did not use already), `SPARE_CORES` stayed
 * idle. A verdict holds until the next sample; the first sample after a quiet spell keeps the last one.
 */
export class Headroom {
  #at = Number.NEGATIVE_INFINITY;
  #last: CpuTimes | undefined;
  #spare = true;

  constructor(private readonly sample: () => CpuTimes = cpuTimes) {}

  /** Whether polling may go on at `now` (performance.now()). */
  spare(now: number): boolean {
    const elapsed = now - this.#at;
    if (elapsed < HEADROOM_SAMPLE_MS) return this.#spare;
    const times = this.sample();
    const last = this.#last;
    // over a longer gap the machine did other things than what polling would meet: start again from here
    if (last && elapsed < 4 * HEADROOM_SAMPLE_MS) {
      const idle = (times.idleMs - last.idleMs) / elapsed;
      const own = (times.ownUs - last.ownUs) / 1000 / elapsed;
      this.#spare = idle - Math.max(0, 1 - own) >= SPARE_CORES;
    }
    this.#at = now;
    this.#last = times;
    return this.#spare;
  }
}
