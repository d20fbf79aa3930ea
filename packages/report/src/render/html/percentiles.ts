import type { StepResult } from '@mcp-db-bench/contract';
import { type Histogram, summary } from '../../histogram.js';

/**
 * Where the percentile spectrum is read: 1/(1 − q) from 2 (p50) to 10,000 (p99.99), twenty
 * points a decade, so a log axis spaces them evenly (the HdrHistogram plot).
 */
export const SPECTRUM_LEVELS: readonly number[] = [
  2,
  ...Array.from({ length: 74 }, (_, i) => 10 ** ((i + 7) / 20)),
].map((x) => Number(x.toPrecision(12)));

export const SPECTRUM_TICKS = [
  { value: 2, label: 'p50' },
  { value: 10, label: 'p90' },
  { value: 100, label: 'p99' },
  { value: 1000, label: 'p99.9' },
  { value: 10000, label: 'p99.99' },
];

/**
 * Latency in ms at each spectrum level. A level beyond what the sample count resolves
 * (1/(1 − q) above the count: fewer than one call lies beyond it) is null, not the maximum.
 */
export function spectrum(h: Histogram, levels: readonly number[] = SPECTRUM_LEVELS): (number | null)[] {
  return levels.map((level) => (level <= h.totalCount ? h.getValueAtPercentile(100 * (1 - 1 / level)) / 1000 : null));
}

/** p50 … p99.99 and max in ms; a percentile the count cannot resolve is null. */
export function percentiles(h: Histogram): {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  p999: number | null;
  p9999: number | null;
  max: number | null;
} {
  const at = (level: number) => (h.totalCount >= level ? h.getValueAtPercentile(100 * (1 - 1 / level)) / 1000 : null);
  return {
    p50: at(2),
    p90: at(10),
    p99: at(100),
    p999: at(1000),
    p9999: at(10000),
    max: h.totalCount ? summary(h).max / 1000 : null,
  };
}

/** Interval calls/s along a step: each interval lasts until the next one starts (the last until the step ends). */
export function intervalRates(
  step: Pick<StepResult, 'intervals' | 'durationMs'>,
): { startMs: number; lengthMs: number; rate: number }[] {
  return step.intervals.map((interval, i) => {
    const end = Math.min(step.intervals[i + 1]?.atMs ?? step.durationMs, step.durationMs);
    const lengthMs = end - interval.atMs > 0 ? end - interval.atMs : 1000;
    return { startMs: interval.atMs, lengthMs, rate: interval.calls / (lengthMs / 1000) };
  });
}
