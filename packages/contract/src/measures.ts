/**
 * What a step measured, and two sides of a comparison paired by iteration: the one definition
 * the result file's comparisons, every report and the study's findings use. Pure: no I/O.
 *
 * The words (docs/development.md § Names):
 * - goodput: successful calls per second (the reports' "calls/s");
 * - throughput: calls per second attempted, the failed ones included;
 * - rate: a step's rate in its workload's unit: its goodput, or its committed transactions per
 *   second where the workload's unit is a transaction (transfer);
 * - overran: the step's calls outlasted it by more than half its length, so its rate counted the
 *   calls that happened to end inside it, not what the server could do.
 */
import { type RatioInterval, ratioInterval } from './interval.js';
import type { Comparison, StepResult } from './results.js';

const perSecond = (n: number, durationMs: number) => (durationMs > 0 ? n / (durationMs / 1000) : 0);

/** Failed calls of every kind. */
export const failedCalls = (s: Pick<StepResult, 'errors'>): number =>
  Object.values(s.errors).reduce((a, b) => a + b, 0);

/** Successful calls per second. */
export const goodput = (s: Pick<StepResult, 'calls' | 'durationMs'>): number => perSecond(s.calls, s.durationMs);

/** Calls per second attempted: the successful and the failed. */
export const throughput = (s: Pick<StepResult, 'calls' | 'errors' | 'durationMs'>): number =>
  perSecond(s.calls + failedCalls(s), s.durationMs);

/** What a step's rate counts: successful calls, or committed transactions (a workload that counts its commits). */
export type RateUnit = 'calls' | 'commits';

export const unitOf = (s: Pick<StepResult, 'commits'>): RateUnit => (s.commits ? 'commits' : 'calls');

/** A step's rate in its unit: committed transactions per second where it counts commits, else its goodput. */
export const stepRate = (s: Pick<StepResult, 'calls' | 'durationMs' | 'commits'>): number =>
  s.commits ? perSecond(s.commits.committed, s.durationMs) : goodput(s);

/** The step's calls outlasted it by more than half its length: its rate is no measure of the server. */
export const overran = (s: Pick<StepResult, 'overrun' | 'durationMs'>): boolean =>
  (s.overrun?.lastEndedAfterMs ?? 0) > s.durationMs / 2;

/** Iterations a pairing left out, by reason. */
export interface Excluded {
  /** a side's step measured nothing to rate: no successful call (no commit, in commits) */
  empty: number;
  /** a side's step overran */
  overran: number;
  /** one side has no step in the iteration */
  unpaired: number;
}

/** Two sides paired by iteration: what a comparison of the result file holds. */
export interface Pairing {
  unit: RateUnit;
  /** the iterations paired, in order */
  iterations: number[];
  /** per iteration: other's rate over base's (above 1: other is faster) */
  rate: number[];
  /** per iteration: base's p50 over other's (above 1: other answers sooner) */
  p50: number[];
  excluded: Excluded;
}

/**
 * The steps of two sides paired by iteration (the runner alternates the sides within each
 * iteration, so each pair ran close in time): per pair, the ratio of their rates and of their
 * p50s (`p50Us`: a step's p50 in µs; the histograms are the report package's). An iteration is
 * left out, and counted, when a side has no step in it, measured nothing to rate, or overran.
 */
export function pairSteps(
  base: readonly StepResult[],
  other: readonly StepResult[],
  p50Us: (s: StepResult) => number,
): Pairing {
  const unit = [...base, ...other].some((s) => s.commits) ? 'commits' : 'calls';
  const out: Pairing = { unit, iterations: [], rate: [], p50: [], excluded: { empty: 0, overran: 0, unpaired: 0 } };
  const iterations = [...new Set([...base, ...other].map((s) => s.iteration))].sort((a, b) => a - b);
  for (const iteration of iterations) {
    const b = base.find((s) => s.iteration === iteration);
    const o = other.find((s) => s.iteration === iteration);
    if (!b || !o) out.excluded.unpaired++;
    else if (stepRate(b) <= 0 || stepRate(o) <= 0) out.excluded.empty++;
    else if (overran(b) || overran(o)) out.excluded.overran++;
    else {
      out.iterations.push(iteration);
      out.rate.push(stepRate(o) / stepRate(b));
      out.p50.push(p50Us(b) / Math.max(p50Us(o), 1));
    }
  }
  return out;
}

/**
 * A comparison's verdict: the median of its per-iteration ratios and their interval (`p50`: of
 * its p50 ratios instead of its rates); undefined when no iteration paired. Every report and
 * finding takes a comparison's ratio from here, and nowhere else.
 */
export function comparisonRatio(c: Comparison, of: 'rate' | 'p50' = 'rate'): RatioInterval | undefined {
  // a file written before `rate` holds its calls/s ratios as `throughput`
  return ratioInterval(of === 'p50' ? c.p50 : (c.rate ?? c.throughput ?? []));
}

/** Why a comparison has no ratio: every iteration left out for a step that overran, or none paired. */
export const noRatioReason = (c: Comparison): 'overran' | 'none' =>
  c.excluded && c.excluded.overran > 0 && (c.rate ?? []).length === 0 ? 'overran' : 'none';
