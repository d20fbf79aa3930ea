/**
 * Time as the step driver sees it. Injected so the driver's arithmetic (warm-up cut-off, intended
 * start times, interval attribution) can be tested exactly with a fake clock.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';

export interface Clock {
  /** milliseconds, fractional, monotonic */
  now(): number;
  /** resolves after `ms` milliseconds (at once when `ms` <= 0) */
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => performance.now(),
  sleep: (ms) => (ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms))),
};

interface Sleeper {
  due: number;
  seq: number;
  resolve: () => void;
}

/**
 * A manually driven clock. Time moves only in `advance` or `run`; each due sleeper is woken
 * alone, in (due time, creation) order, and everything it triggers (the promise chains it
 * resumes) settles before time moves again, so a scripted test is deterministic.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #sleepers: Sleeper[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = { due: this.#now + ms, seq: this.#seq++, resolve };
      const at = this.#sleepers.findIndex((s) => s.due > sleeper.due);
      this.#sleepers.splice(at === -1 ? this.#sleepers.length : at, 0, sleeper);
    });
  }

  /** sleepers not yet woken */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** Moves time forward by `ms`, waking every sleeper due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    while (this.#sleepers[0] !== undefined && this.#sleepers[0].due <= target) await this.#wakeNext();
    this.#now = target;
  }

  /**
   * Drives time from sleeper to sleeper until `work` settles, then returns its result.
   * Throws if `work` is still pending with nobody asleep: it waits on something this clock
   * does not control, and advancing time would never finish it.
   */
  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const observed = work.finally(() => {
      done = true;
    });
    observed.catch(() => {});
    await settle();
    while (!done) {
      if (this.#sleepers.length === 0) throw new Error('FakeClock.run: work is pending but nothing sleeps');
      await this.#wakeNext();
    }
    return work;
  }

  async #wakeNext(): Promise<void> {
    const next = this.#sleepers.shift();
    if (next === undefined) return;
    this.#now = next.due;
    next.resolve();
    await settle();
  }
}

/** Lets every queued promise continuation run: microtasks drain before the next macrotask. */
function settle(): Promise<void> {
  return nextMacrotask().then(() => undefined);
}
