/**
 * Numbers as every report writes them, the terminal's, Markdown's, the HTML page's and the
 * findings': one function per kind of number, so one number reads the same wherever it is shown.
 */
import { formatVerdict, type RatioVerdict } from '@mcp-db-bench/contract';

/** A count (or a number shown whole): rounded, its thousands grouped as en-US writes them (12,345). */
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** A rate per second: whole and grouped from 100 (1,234), one decimal below (12.5). */
export const rate = (n: number): string => (n >= 100 ? int(n) : n.toFixed(1));

/** Three significant figures, whole from 100: 0.42, 13.7, 164. */
const figures = (x: number) => x.toFixed(x >= 100 ? 0 : x >= 10 ? 1 : 2);

/** A latency measured in µs, written in ms: 0.42, 13.7, 164. */
export const ms = (us: number): string => figures(us / 1000);

/** A share as a percentage: whole (37%), with a decimal below 1% so that a small share is not 0% (0.4%). */
export const pct = (x: number): string => `${(x * 100).toFixed(x !== 0 && Math.abs(x) < 0.01 ? 1 : 0)}%`;

/**
 * A ratio as it reads, by its verdict (`formatVerdict`: `1.32x [1.15–1.58]`, `no difference
 * (0.97–1.04)`, `~ (1.05–1.20)`, `withheld (...)`, `1.32x (1 iteration)`); "–" when there is none.
 */
export const ratio = (v: RatioVerdict | undefined): string => (v ? formatVerdict(v) : '–');

/** Median and range of a few numbers, as "median (min–max)". */
export function spread(values: readonly number[], format: (n: number) => string): string {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length > 1
    ? `${format(median(sorted))} (${format(sorted[0]!)}–${format(sorted.at(-1)!)})`
    : format(median(sorted));
}

/** The median of some numbers (0 of none): the middle one, or the mean of the middle two. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
