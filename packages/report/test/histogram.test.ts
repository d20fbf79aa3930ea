import { describe, expect, it } from 'vitest';
import {
  decode,
  encode,
  HIGHEST_TRACKABLE_US,
  merge,
  newHistogram,
  record,
  summarize,
  summary,
} from '../src/histogram.js';

/** Deterministic pseudo-random latencies (µs), log-spread from ~100 µs to ~1 s. */
function latencies(seed: number, n: number): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    out.push(Math.round(100 * 10 ** ((x / 2_147_483_648) * 4)));
  }
  return out;
}

function histogramOf(values: number[]) {
  const h = newHistogram();
  for (const v of values) record(h, v);
  return h;
}

/** Within HdrHistogram's 3-significant-digit precision. */
function near(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected / 1000 + 1);
}

describe('histogram helpers', () => {
  it('clamps recorded values into [1 µs, 60 s] and rounds to whole microseconds', () => {
    const h = newHistogram();
    record(h, 0);
    record(h, -5);
    record(h, 0.4);
    record(h, 1e12);
    const s = summary(h);
    expect(s.count).toBe(4);
    expect(s.min).toBe(1);
    near(s.max, HIGHEST_TRACKABLE_US);
  });

  it('reads percentiles in microseconds', () => {
    const h = histogramOf([...Array(990).fill(1000), ...Array(10).fill(100_000)]);
    const s = summary(h);
    expect(s.count).toBe(1000);
    expect(s.p50).toBe(1000);
    expect(s.p99).toBe(1000);
    near(s.p999, 100_000);
    near(s.max, 100_000);
    near(s.mean, 1990);
  });

  it('summarizes an empty histogram as zeros', () => {
    expect(summary(newHistogram())).toEqual({
      count: 0,
      min: 0,
      mean: 0,
      p50: 0,
      p90: 0,
      p95: 0,
      p99: 0,
      p999: 0,
      max: 0,
    });
  });

  it('survives an encode/decode round trip unchanged', () => {
    const h = histogramOf(latencies(7, 5000));
    const encoded = encode(h);
    expect(typeof encoded).toBe('string');
    expect(summarize(encoded)).toEqual(summary(h));
    expect(encode(decode(encoded))).toBe(encoded);
  });

  it('merging encoded histograms equals recording every value in one', () => {
    const a = latencies(1, 3000);
    const b = latencies(2, 700).map((v) => v * 3);
    const merged = merge([encode(histogramOf(a)), encode(histogramOf(b))]);
    const single = histogramOf([...a, ...b]);
    expect(merged.totalCount).toBe(3700);
    expect(summary(merged)).toEqual(summary(single));
    expect(encode(merged)).toBe(encode(single));
  });

  it('merging is not averaging percentiles', () => {
    // a fast worker and a slow one with fewer calls: averaging their p99s describes nobody
    const fast = histogramOf(Array(900).fill(1000));
    const slow = histogramOf(Array(100).fill(50_000));
    const averaged = (summary(fast).p99 + summary(slow).p99) / 2;
    const merged = summary(merge([encode(fast), encode(slow)]));
    near(merged.p99, 50_000);
    near(merged.p50, 1000);
    expect(Math.abs(merged.p99 - averaged)).toBeGreaterThan(20_000);
  });
});
