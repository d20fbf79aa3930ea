/**
 * A seeded random stream (mulberry32: tiny, fast, good enough for synthetic data and simulated
 * choices). The agent draws a run's choices from it and the dataset its rows, so both are
 * reproducible and the same on every engine.
 */
export class Random {
  #state = 0;

  constructor(seed = 0) {
    this.restart(seed);
  }

  /** Starts the stream over from `seed`. */
  restart(seed: number): this {
    this.#state = seed | 0;
    return this;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An id in [1, n], skewed towards low ids: with power 3, the first 10% get ~46% of draws. */
  skewed(n: number, power: number): number {
    return 1 + Math.floor(n * this.next() ** power);
  }

  /** Picks by weight: `{ a: 3, b: 1 }` gives a three times in four. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let r = this.next() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [k, w] of entries) {
      r -= w;
      if (r < 0) return k;
    }
    return entries.at(-1)![0];
  }
}
