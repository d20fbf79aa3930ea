/**
 * Deterministic randomness keyed by (seed, table, row): any row can be generated on its own,
 * in any order or batch size, and comes out the same. That is what makes the dataset
 * identical on every engine and lets a loader stream it without holding it.
 */
export class RowRandom {
  #state = 0;

  /** Positions the stream at one row of one table. */
  at(seed: number, table: number, row: number): this {
    this.#state = mix(mix(mix(seed ^ 0x9e3779b9) ^ table) ^ row);
    return this;
  }

  /** A float in [0, 1). */
  next(): number {
    // mulberry32: tiny, fast, and good enough for synthetic data
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

  /** An id in [1, n], skewed towards low ids: with power 3, the first 10% get ~46% of draws. */
  skewed(n: number, power: number): number {
    return 1 + Math.floor(n * this.next() ** power);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

function mix(x: number): number {
  // murmur3's finalizer: spreads every input bit over the word
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) | 0;
}
