/**
 * Accumulates one step's outcomes: a latency histogram per operation type, error counts by kind,
 * and per-interval histograms. Errors are counted, never recorded as latency: a fast failure
 * must not make the latency look better.
 */
import type { OperationStats, StepResult } from '@mcp-db-bench/contract';
import { encode, type Histogram, mergeHistograms, newHistogram, record } from '@mcp-db-bench/report';

export const INTERVAL_MS = 1000;

export type IntervalStats = StepResult['intervals'][number];

interface Interval {
  calls: number;
  errors: number;
  histogram: Histogram;
}

export interface RecordedStep {
  calls: number;
  errors: Record<string, number>;
  reinitialized: number;
  operations: Record<string, OperationStats>;
  all: OperationStats;
  intervals: IntervalStats[];
  sessionTime?: StepResult['sessionTime'];
}

export class StepRecorder {
  #operations = new Map<string, Histogram>();
  #errors = new Map<string, number>();
  #intervals = new Map<number, Interval>();
  #calls = 0;
  #reinitialized = 0;
  /** replay only: time its agents thought and spent in calls */
  #sessionTime: NonNullable<StepResult['sessionTime']> | undefined;

  /** @param windowStart clock time (ms) at which the measured window begins */
  constructor(readonly windowStart: number) {}

  get calls(): number {
    return this.#calls;
  }

  get errorCount(): number {
    let n = 0;
    for (const count of this.#errors.values()) n += count;
    return n;
  }

  /** A successful call; `latencyMs` from its (intended) start, `endedAt` clock time. */
  success(op: string, latencyMs: number, endedAt: number): void {
    let h = this.#operations.get(op);
    if (h === undefined) {
      h = newHistogram();
      this.#operations.set(op, h);
    }
    record(h, latencyMs * 1000);
    const interval = this.#interval(endedAt);
    interval.calls++;
    record(interval.histogram, latencyMs * 1000);
    this.#calls++;
  }

  failure(kind: string, endedAt: number): void {
    this.#errors.set(kind, (this.#errors.get(kind) ?? 0) + 1);
    this.#interval(endedAt).errors++;
  }

  /** A replaying agent waited its think time (the part inside the measured window). */
  thought(ms: number): void {
    this.#sessionTime ??= { thinkMs: 0, callMs: 0 };
    this.#sessionTime.thinkMs += ms;
  }

  /** A replaying agent's measured call, failed or not, from its start to its answer. */
  called(ms: number): void {
    this.#sessionTime ??= { thinkMs: 0, callMs: 0 };
    this.#sessionTime.callMs += ms;
  }

  /** Sessions the server ended that a client started again during an operation, which it then retried. */
  reinitialized(count: number): void {
    this.#reinitialized += count;
  }

  /**
   * Encodes everything. Intervals cover `durationMs` in whole seconds (the last may be partial);
   * calls that finish after the window (in flight when it closed) fold into the last interval.
   */
  finish(durationMs: number): RecordedStep {
    const operations: Record<string, OperationStats> = {};
    for (const [op, h] of [...this.#operations].sort(([a], [b]) => a.localeCompare(b))) {
      operations[op] = { count: h.totalCount, histogram: encode(h) };
    }
    const all = mergeHistograms(this.#operations.values());
    return {
      calls: this.#calls,
      errors: Object.fromEntries([...this.#errors].sort(([a], [b]) => a.localeCompare(b))),
      reinitialized: this.#reinitialized,
      operations,
      all: { count: all.totalCount, histogram: encode(all) },
      intervals: this.#encodeIntervals(Math.max(1, Math.ceil(durationMs / INTERVAL_MS))),
      ...(this.#sessionTime && {
        sessionTime: { thinkMs: round3(this.#sessionTime.thinkMs), callMs: round3(this.#sessionTime.callMs) },
      }),
    };
  }

  #interval(endedAt: number): Interval {
    const index = Math.max(0, Math.floor((endedAt - this.windowStart) / INTERVAL_MS));
    let interval = this.#intervals.get(index);
    if (interval === undefined) {
      interval = { calls: 0, errors: 0, histogram: newHistogram() };
      this.#intervals.set(index, interval);
    }
    return interval;
  }

  #encodeIntervals(count: number): IntervalStats[] {
    const folded = Array.from(
      { length: count },
      (_, i): Interval => this.#intervals.get(i) ?? { calls: 0, errors: 0, histogram: newHistogram() },
    );
    const last = folded[count - 1]!;
    for (const [index, late] of this.#intervals) {
      if (index < count) continue;
      last.calls += late.calls;
      last.errors += late.errors;
      last.histogram.add(late.histogram);
    }
    return folded.map((interval, i) => ({
      atMs: i * INTERVAL_MS,
      calls: interval.calls,
      errors: interval.errors,
      histogram: encode(interval.histogram),
    }));
  }
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
