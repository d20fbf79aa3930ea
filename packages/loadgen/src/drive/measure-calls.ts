/**
 * N sequential calls, each timed alone: for costs that are not a steady stream (session start,
 * cold and warm) and for the cost decomposition (raw driver, echo tool, full tool call).
 */
import type { OperationStats } from '@mcp-db-bench/contract';
import { encode, newHistogram, record } from '@mcp-db-bench/report';
import { type Clock, realClock } from './clock.js';
import { errorKindOf } from './run-step.js';

export interface MeasureCallsOptions {
  /** measured calls */
  count: number;
  /** unmeasured calls made first (default 0) */
  warmup?: number;
  /** one call; a throw is a failure of kind `err.kind ?? 'exception'` */
  call: () => Promise<unknown>;
  clock?: Clock;
}

/** `count` and `histogram` as in the contract, plus the failures (never part of the histogram). */
export interface MeasuredCalls extends OperationStats {
  errors: Record<string, number>;
  /** the first message of each kind of failure, to say what went wrong */
  firstErrors: Record<string, string>;
}

export async function measureCalls(options: MeasureCallsOptions): Promise<MeasuredCalls> {
  const clock = options.clock ?? realClock;
  for (let i = 0; i < (options.warmup ?? 0); i++) {
    try {
      await options.call();
    } catch {
      // warm-up failures are not results; a persistent failure shows in the measured calls
    }
  }
  const histogram = newHistogram();
  const errors: Record<string, number> = {};
  const firstErrors: Record<string, string> = {};
  for (let i = 0; i < options.count; i++) {
    const started = clock.now();
    try {
      await options.call();
      record(histogram, (clock.now() - started) * 1000);
    } catch (err) {
      const kind = errorKindOf(err);
      errors[kind] = (errors[kind] ?? 0) + 1;
      firstErrors[kind] ??= (err as Error)?.message ?? String(err);
    }
  }
  return { count: histogram.totalCount, histogram: encode(histogram), errors, firstErrors };
}
