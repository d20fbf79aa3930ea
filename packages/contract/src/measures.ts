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
import {
  CLAIM_RULES,
  type ClaimRules,
  judgeRatios,
  type PairedRatio,
  pairWithheld,
  type RatioDesign,
  type RatioEvidence,
  type RatioVerdict,
  ratioEvidence,
  WITHHELD,
} from './claims.js';
import type { Comparison, ResultFile, StepResult } from './results.js';

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
  /** the claims rules: a side with too few calls (commits) for a rate */
  few: number;
  /** the claims rules: other processes disturbed the pair (`pairDisturbed`) */
  disturbed: number;
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
  /** each iteration left out, with why (`WITHHELD`'s words) */
  withheld: { iteration: number; reason: string }[];
}

/** Why an iteration's pair gives no ratio, by the pairing's rules and the claims rules; undefined: it gives one. */
function leftOut(b: StepResult | undefined, o: StepResult | undefined, rules: ClaimRules): keyof Excluded | undefined {
  if (!b || !o) return 'unpaired';
  if (stepRate(b) <= 0 || stepRate(o) <= 0) return 'empty';
  if (overran(b) || overran(o)) return 'overran';
  const why = pairWithheld(b, o, rules);
  return why === undefined ? undefined : why === WITHHELD.few ? 'few' : 'disturbed';
}

/** The words of each reason an iteration is left out (the disturbed ones say how: busy, or one side loaded). */
const reasonOf = (kind: keyof Excluded, b: StepResult, o: StepResult, rules: ClaimRules): string =>
  kind === 'disturbed' ? pairWithheld(b, o, rules)! : WITHHELD[kind];

/**
 * The steps of two sides paired by iteration (the runner alternates the sides within each
 * iteration, so each pair ran close in time): per pair, the ratio of their rates and of their
 * p50s (`p50Us`: a step's p50 in µs; the histograms are the report package's). An iteration is
 * left out, counted and said why, when a side has no step in it, measured nothing to rate, or
 * overran; or by the claims rules, when a side made too few calls for a rate or other processes
 * disturbed the pair (`pairWithheld`).
 */
export function pairSteps(
  base: readonly StepResult[],
  other: readonly StepResult[],
  p50Us: (s: StepResult) => number,
  rules: ClaimRules = CLAIM_RULES,
): Pairing {
  const unit = [...base, ...other].some((s) => s.commits) ? 'commits' : 'calls';
  const excluded: Excluded = { empty: 0, overran: 0, unpaired: 0, few: 0, disturbed: 0 };
  const out: Pairing = { unit, iterations: [], rate: [], p50: [], excluded, withheld: [] };
  const iterations = [...new Set([...base, ...other].map((s) => s.iteration))].sort((a, b) => a - b);
  for (const iteration of iterations) {
    const b = base.find((s) => s.iteration === iteration);
    const o = other.find((s) => s.iteration === iteration);
    const kind = leftOut(b, o, rules);
    if (kind) {
      excluded[kind]++;
      out.withheld.push({ iteration, reason: b && o ? reasonOf(kind, b, o, rules) : WITHHELD.unpaired });
    } else {
      out.iterations.push(iteration);
      out.rate.push(stepRate(o!) / stepRate(b!));
      out.p50.push(p50Us(b!) / Math.max(p50Us(o!), 1));
    }
  }
  return out;
}

/** Which of a comparison's ratios: of its rates (calls/s, commits/s), or of its p50s. */
export type RatioOf = 'rate' | 'p50';

/**
 * How a file's ratios were measured: its planned iterations, and (study --budget) the batches
 * its iterations were added in, which makes every look past the first stricter.
 */
export const designOf = (config: Pick<ResultFile['config'], 'iterations' | 'extended'>): RatioDesign =>
  config.extended
    ? { planned: config.iterations, sequential: { batch: config.extended.batch } }
    : { planned: config.iterations };

/** The claims rules a file's ratios are judged by: its band (`run --band`), or `band` given, or the default. */
export const rulesOf = (config: Pick<ResultFile['config'], 'band'>, band?: number): ClaimRules => ({
  ...CLAIM_RULES,
  band: band ?? config.band ?? CLAIM_RULES.band,
});

/** A comparison's pairs, one per iteration paired or left out: its ratio of `of`, or why there is none. */
export function comparisonPairs(c: Comparison, of: RatioOf = 'rate'): PairedRatio[] {
  // a file written before `rate` holds its calls/s ratios as `throughput`
  const ratios = of === 'p50' ? c.p50 : (c.rate ?? c.throughput ?? []);
  const pairs: PairedRatio[] = [
    ...c.iterations.map((iteration, i) => ({ iteration, ratio: ratios[i]! })),
    ...(c.withheld ?? []).map(({ iteration, reason }) => ({ iteration, withheld: reason })),
  ];
  return pairs.sort((a, b) => a.iteration - b.iteration);
}

/** One ratio of a family: a comparison's rate or p50 ratio, and how its file was measured. */
export interface FamilyMember {
  comparison: Comparison;
  of: RatioOf;
  design: RatioDesign;
}

/**
 * The verdicts of a family of comparisons' ratios judged together (`judgeRatios`: the band, the
 * per-ratio test, Holm over the family): every report and finding takes a comparison's ratio and
 * verdict from here, and nowhere else. Each ratio rests on its usable pairs, at the look it
 * settled (`ratioEvidence`); the evidence is returned beside its verdict.
 */
export function comparisonVerdicts(
  family: readonly FamilyMember[],
  rules: ClaimRules = CLAIM_RULES,
): { evidence: RatioEvidence; verdict: RatioVerdict }[] {
  const evidence = family.map((m) =>
    ratioEvidence(comparisonPairs(m.comparison, m.of), m.design, { rules, family: family.length }),
  );
  const verdicts = judgeRatios(evidence, { rules, family: family.length });
  return evidence.map((e, i) => ({ evidence: e, verdict: verdicts[i]! }));
}
