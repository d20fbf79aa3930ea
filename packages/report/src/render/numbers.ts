/** Numbers as every report shows them: one median, one spread, one way to write a rate. */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  return sorted.length % 2
    ? sorted[(sorted.length - 1) / 2]!
    : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
}

/** Median and range of a few numbers, as "median (min–max)". */
export function spread(values: readonly number[], format: (n: number) => string): string {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length > 1
    ? `${format(median(sorted))} (${format(sorted[0]!)}–${format(sorted.at(-1)!)})`
    : format(median(sorted));
}

/** `label (indexes)`: how progress lines and reports name a target in a round. */
export const roundLabel = (s: { target: string; indexes: string | null }) =>
  s.indexes ? `${s.target} (${s.indexes})` : s.target;

/** Successful calls per second of a measurement. */
export const callsPerSecond = (m: { calls: number; durationMs: number }) =>
  m.durationMs > 0 ? m.calls / (m.durationMs / 1000) : 0;

/** A count (or a rate shown whole): rounded, its thousands grouped as en-US writes them (12,345). */
export const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** Calls per second: whole and grouped from 100 (1,234), one decimal below (12.5). */
export const rate = (n: number) => (n >= 100 ? int(n) : n.toFixed(1));

/** HTTP 503: the server turned a caller away (a full session table refuses `initialize` with it). */
export const REFUSED = 'http_503';
