import { Random } from '@mcp-db-bench/contract';

/**
 * Deterministic randomness keyed by (seed, table, row): any row can be generated on its own,
 * in any order or batch size, and comes out the same. That is what makes the dataset
 * identical on every engine and lets a loader stream it without holding it.
 */
export class RowRandom extends Random {
  /** Positions the stream at one row of one table. */
  at(seed: number, table: number, row: number): this {
    return this.restart(mix(mix(mix(seed ^ 0x9e3779b9) ^ table) ^ row));
  }
}

function mix(x: number): number {
  // murmur3's finalizer: spreads every input bit over the word
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) | 0;
}
