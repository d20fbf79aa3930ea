import { overran, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { int } from '../format.js';
import { roundLabel } from './groups.js';
import type { Section } from './table.js';

/** "850 ms" or "3.2 s". */
export const after = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/**
 * A closed loop always ends with its agents' last calls in flight, a fraction of a call past the
 * end: the step is marked only when its last call ended later than this share of its duration
 * (and at least OVERRUN_MIN_MS) after it.
 */
export const OVERRUN_SHARE = 0.05;
export const OVERRUN_MIN_MS = 50;

/**
 * Whether a step's calls outlasted it by more than the tail every step has: the table lists it.
 * One that `overran` (by more than half its length) is also left out of every ratio.
 */
export const outlasted = (s: Pick<StepResult, 'overrun' | 'durationMs'>): boolean =>
  s.overrun !== undefined && s.overrun.lastEndedAfterMs > Math.max(OVERRUN_MIN_MS, OVERRUN_SHARE * s.durationMs);

/**
 * Steps whose calls outlasted them: a call that began inside the step and finished after it
 * (a whole-table grouping longer than a short step). It counts among the step's calls and its time
 * among the latencies, but the step's calls/s divides by the step's time, not the time its calls took.
 */
export function overrunSection(result: ResultFile): Section {
  return {
    title: 'Overrun: steps whose calls outlasted them',
    note:
      `calls that began before the step ended and finished after it, the last more than ${OVERRUN_SHARE * 100}% of the ` +
      `step (at least ${OVERRUN_MIN_MS} ms) after it: its calls/s divides by the step's time, not the time its calls took; a longer --duration, or the slow kind as its own workload, measures it better. A step whose last call ended more than half its length after it overran: every ratio leaves it out`,
    head: ['target', 'workload', 'agents', 'iteration', 'calls running at its end', 'overrun', 'in ratios'],
    rows: result.steps.flatMap((s) =>
      s.overrun && outlasted(s)
        ? [
            [
              roundLabel(s),
              s.workload,
              int(s.agents),
              int(s.iteration),
              int(s.overrun.calls),
              `last call ended ${after(s.overrun.lastEndedAfterMs)} after the step`,
              overran(s) ? 'left out: overran' : 'kept',
            ],
          ]
        : [],
    ),
  };
}
