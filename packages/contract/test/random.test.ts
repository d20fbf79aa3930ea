import { describe, expect, it } from 'vitest';
import { Random } from '../src/random.js';

// Values taken from the agent's generator before it moved here: a run with the same seed must
// make the same calls as before.
describe('Random', () => {
  it('draws the same stream for the same seed', () => {
    const r = new Random(42);
    expect([
      r.next(),
      r.next(),
      r.int(1, 1000),
      r.pick(['a', 'b', 'c', 'd']),
      r.weighted({ a: 3, b: 1, c: 6 }),
      r.next(),
    ]).toEqual([0.6011037519201636, 0.44829055899754167, 853, 'c', 'a', 0.5265925421845168]);
    const negative = new Random(-7);
    expect([negative.next(), negative.int(0, 1e9)]).toEqual([0.43306733411736786, 325395767]);
  });
});
