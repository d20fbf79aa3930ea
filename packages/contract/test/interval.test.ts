import { describe, expect, it } from 'vitest';
import { formatRatio } from '../src/claims.js';
import { coverage, medianInterval, ratioInterval } from '../src/interval.js';

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('medianInterval', () => {
  it('gives the order statistics of the textbook tables: ranks 2 and 9 of 10, 6 and 15 of 20', () => {
    // shuffled, so the ranks are the sorted values'
    const ten = [7, 3, 10, 1, 9, 2, 8, 5, 4, 6];
    expect(medianInterval(ten)).toEqual({ median: 5.5, low: 2, high: 9, confidence: 1 - (2 * 11) / 1024, n: 10 });
    const twenty = medianInterval(range(20).reverse())!;
    expect([twenty.low, twenty.high, twenty.median]).toEqual([6, 15, 10.5]);
    expect(twenty.confidence).toBeCloseTo(0.9586, 4);
  });

  it('falls back to min–max with the confidence it has when too few values reach 95%', () => {
    expect(medianInterval([1.2, 0.9, 1.5, 1.1, 1.3])).toEqual({
      median: 1.2,
      low: 0.9,
      high: 1.5,
      confidence: 0.9375,
      n: 5,
    });
    expect(medianInterval([2, 4, 3])).toEqual({ median: 3, low: 2, high: 4, confidence: 0.75, n: 3 });
    expect(medianInterval([4])).toEqual({ median: 4, low: 4, high: 4, confidence: 0, n: 1 });
    expect(medianInterval([])).toBeUndefined();
    expect(medianInterval([Number.NaN, Number.POSITIVE_INFINITY])).toBeUndefined();
  });

  it('computes the binomial coverage exactly, and without underflow for large n', () => {
    expect(coverage(6, 1)).toBe(1 - 2 / 64);
    expect(coverage(6, 2)).toBe(1 - (2 * 7) / 64);
    expect(coverage(2000, 1)).toBe(1);
    // a thousand values: P(B ≤ 468) ≈ 0.0232 (coverage 95.4%), P(B ≤ 469) ≈ 0.0270 (94.6%)
    const i = medianInterval(range(1000))!;
    expect(i.low).toBe(469);
    expect(i.high).toBe(532);
    expect(i.confidence).toBeGreaterThanOrEqual(0.95);
  });
});

describe('ratioInterval and formatRatio', () => {
  it('claims a difference only when the interval excludes 1 at 90% or more', () => {
    const faster = ratioInterval([1.32, 1.1, 1.58, 1.4, 1.25])!;
    expect(faster.differs).toBe(true);
    expect(formatRatio(faster)).toBe('1.32x [1.10–1.58]');
    const slower = ratioInterval([0.5, 0.41, 0.6, 0.55, 0.45])!;
    expect(formatRatio(slower)).toBe('0.50x [0.41–0.60]');
    // one iteration across 1: no difference measured
    const crossing = ratioInterval([0.91, 1.05, 1.12, 1.0, 0.97])!;
    expect(crossing.differs).toBe(false);
    expect(formatRatio(crossing)).toBe('~ (0.91–1.12)');
    // three iterations all above 1 are only 75% sure: not a measured difference
    const three = ratioInterval([1.5, 1.6, 1.7])!;
    expect(three.differs).toBe(false);
    expect(formatRatio(three)).toBe('~ (1.50–1.70)');
  });

  it('says when there is a single iteration, and prints large ratios with fewer decimals', () => {
    expect(formatRatio(ratioInterval([1.234])!)).toBe('1.23x (1 iteration)');
    expect(formatRatio(ratioInterval([74.2, 60.1, 80.34, 71, 77])!)).toBe('74.2x [60.1–80.3]');
    expect(formatRatio(ratioInterval([140, 120, 160, 150, 130])!)).toBe('140x [120–160]');
  });
});
