/**
 * Latency histograms: HdrHistogram in microseconds, pure-JS build. Results carry them encoded
 * (compressed base64) so runs from several processes or machines merge exactly; percentiles are
 * read from a merged histogram, never averaged.
 */
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';

export type { Histogram };

/** 60 s in microseconds: anything slower is a timeout, not a latency worth resolving. */
export const HIGHEST_TRACKABLE_US = 60_000_000;
export const LOWEST_DISCERNIBLE_US = 1;
export const SIGNIFICANT_DIGITS = 3;

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
}

export function newHistogram(): Histogram {
  return build({
    bitBucketSize: 32,
    // fixed range: recording is clamped, so the counts array never has to grow mid-step
    autoResize: false,
    lowestDiscernibleValue: LOWEST_DISCERNIBLE_US,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
    useWebAssembly: false,
  });
}

/** Records one latency, clamped to the trackable range (a sub-microsecond call counts as 1 µs). */
export function record(h: Histogram, micros: number): void {
  const value = Math.round(micros);
  h.recordValue(Math.min(HIGHEST_TRACKABLE_US, Math.max(LOWEST_DISCERNIBLE_US, value)));
}

export function encode(h: Histogram): string {
  return encodeIntoCompressedBase64(h);
}

export function decode(encoded: string): Histogram {
  return decodeFromCompressedBase64(encoded, 32, false);
}

/** Adds histograms together: the only correct way to combine latency distributions. */
export function merge(encoded: Iterable<string>): Histogram {
  const total = mergeTarget();
  for (const s of encoded) total.add(decode(s));
  return total;
}

/** Adds in-memory histograms into a new one, leaving the inputs untouched. */
export function mergeHistograms(histograms: Iterable<Histogram>): Histogram {
  const total = mergeTarget();
  for (const h of histograms) total.add(h);
  return total;
}

/** Growable, so histograms recorded elsewhere with a wider range still add without throwing. */
function mergeTarget(): Histogram {
  const h = newHistogram();
  h.autoResize = true;
  return h;
}

/**
 * Percentiles in microseconds. Values are HdrHistogram's "highest equivalent value" (within
 * 0.1 % above the recorded value), and `max` is read the same way so a histogram reads the same
 * before and after an encode/decode round trip. All zero when nothing was recorded.
 */
export function summary(h: Histogram): LatencySummary {
  const count = h.totalCount;
  if (count === 0) return { count, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0, max: 0 };
  const at = (p: number) => h.getValueAtPercentile(p);
  return {
    count,
    min: at(0),
    mean: h.mean,
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max: at(100),
  };
}

export function summarize(encoded: string): LatencySummary {
  return summary(decode(encoded));
}
