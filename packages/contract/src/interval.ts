/**
 * How sure a ratio is: the median of paired per-iteration ratios with a distribution-free
 * confidence interval from order statistics (as golang.org/x/perf's benchmath does). The
 * interval [x(k), x(n+1-k)] of n sorted values holds the true median with probability
 * 1 - 2·P(B ≤ k-1), B ~ Binomial(n, 1/2), whatever the values' distribution. Pure: no I/O.
 */

import { binomialCdf } from './stats.js';

/** The confidence an interval aims for; with few values it is the widest (min to max) instead. */
export const CONFIDENCE = 0.95;

/**
 * A difference is claimed only from an interval at least this sure: 5 paired iterations and up
 * (their min to max holds the median with 1 - 2/2^5 = 93.75%); fewer read "no difference measured".
 */
export const MIN_CONFIDENCE = 0.9;

export interface Interval {
  median: number;
  low: number;
  high: number;
  /** the probability the interval holds the true median (0 with one value) */
  confidence: number;
  /** the values it was computed from */
  n: number;
}

export interface RatioInterval extends Interval {
  /** the interval lies wholly above or below 1, at a confidence of at least MIN_CONFIDENCE */
  differs: boolean;
}

/** The confidence of [x(k), x(n+1-k)] (1-based ranks). */
export const coverage = (n: number, k: number): number => Math.max(0, 1 - 2 * binomialCdf(n, k - 1));

/** The rank k of the narrowest interval [x(k), x(n+1-k)] of n values that reaches `confidence` (1: min to max). */
export function intervalRank(n: number, confidence = CONFIDENCE): number {
  let k = 1;
  while (k + 1 <= Math.ceil(n / 2) && coverage(n, k + 1) >= confidence) k++;
  return k;
}

/**
 * The median of `values` and the narrowest order-statistic interval around it that reaches
 * `confidence`; when none does (too few values), the widest, with the confidence it has.
 * Non-finite values are left out; undefined when none is left.
 */
export function medianInterval(values: readonly number[], confidence = CONFIDENCE): Interval | undefined {
  const xs = values.filter(Number.isFinite).sort((a, b) => a - b);
  const n = xs.length;
  if (n === 0) return undefined;
  const mid = Math.floor(n / 2);
  const median = n % 2 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
  const k = intervalRank(n, confidence);
  return { median, low: xs[k - 1]!, high: xs[n - k]!, confidence: coverage(n, k), n };
}

/** Paired ratios (one per iteration, each side measured in the same iteration): their median and interval. */
export function ratioInterval(ratios: readonly number[], confidence = CONFIDENCE): RatioInterval | undefined {
  const i = medianInterval(ratios, confidence);
  if (!i) return undefined;
  return { ...i, differs: i.confidence >= MIN_CONFIDENCE && (i.low > 1 || i.high < 1) };
}

/**
 * A ratio's figure: 2 decimals below 10, 1 below 100, none above; more where fewer would put it
 * on or across one of `edges` (1, and the band's edges) it does not reach: 0.997, not 1.00,
 * since a bound of 1.00 reads as touching 1 while 0.997 lies below it.
 */
export function ratioFigure(x: number, edges: readonly number[] = [1]): string {
  if (!Number.isFinite(x)) return String(x);
  let digits = x >= 100 ? 0 : x >= 10 ? 1 : 2;
  const misleads = (text: string) =>
    edges.some((e) => Math.sign(Number(text) - e) !== Math.sign(x - e) && Math.abs(x - e) > 1e-12);
  while (digits < 6 && misleads(x.toFixed(digits))) digits++;
  return x.toFixed(digits);
}
