/**
 * When a ratio is a claim. A study prints about a hundred ratios from a shared machine, so an
 * interval that merely excludes 1 is not enough (about six of a hundred null ratios on 5
 * iterations would be claimed). A ratio is judged against a practical band (±10% by default:
 * [1/1.1, 1.1]) by three rules, all pure functions of its paired per-iteration ratios:
 *
 * - its interval (the distribution-free one of interval.ts) wholly inside the band reads "no
 *   difference"; one that crosses a band edge reads "~" (undecided); only one wholly outside the
 *   band can be a claim;
 * - a claim also needs a per-ratio test against the band's edge that survives Holm's correction
 *   over the study's ratios: the chance of one false claim or more in the whole study stays at
 *   or below `alpha` (5%);
 * - too few usable pairs (fewer than `minPairs`) give no interval at all: the ratio is withheld,
 *   with the reason; fewer pairs than planned never read "no difference".
 *
 * The per-ratio test is Student's t on the log ratios against ln(band), two one-sided tests (the
 * smaller p-value, doubled). Why not a sign test or Wilcoxon's signed-rank test, which assume
 * less: on 5 pairs neither can give a p-value below 1/32, and Holm over 100 ratios asks for
 * 0.0005 at its first step, so no ratio of a 5-iteration study could ever be claimed, 80x
 * speed-ups included. The t-test uses the size of the effect against its spread: five index
 * speed-ups between 33x and 82x give p ≈ 1e-6. The log makes the ratio symmetric (2x and 0.5x
 * are as far from 1) and a machine's noise multiplicative, so the logs are the scale a mean
 * means something on. A disturbed pair (an outlier) widens the spread and so costs the claim
 * rather than making one; the pairs the machine's interference is known to have disturbed are
 * withheld before the test (`pairWithheld`).
 *
 * Holm rather than Benjamini-Hochberg: BH bounds the share of false claims among the claims
 * (with 40 real speed-ups, about two false ones are allowed), Holm the chance of any false claim
 * at all. A rerun should reproduce every claim, and a primary-key read should never be claimed
 * an index speed-up, so the study takes Holm; real effects of the size the study reports
 * (speed-ups of 1.5x and more with a spread of a few percent) clear it on 5 iterations.
 *
 * More iterations instead of false claims (`study --budget`): a ratio looked at again after
 * more iterations gets a stricter test each time, its p-value multiplied by L·(L+1) at its L-th
 * look (an alpha-spending rule: the looks' levels α/2, α/6, α/12, ... sum to α), so keeping going
 * until a ratio settles never buys a false claim.
 */
import {
  CONFIDENCE,
  intervalRank,
  MIN_CONFIDENCE,
  medianInterval,
  type RatioInterval,
  ratioFigure,
} from './interval.js';
import { median } from './median.js';
import type { StepResult } from './results.js';
import { binomialUpper, normalCdf, studentTQuantileUpper, studentTUpper } from './stats.js';

export interface ClaimRules {
  /** the practical band: ratios within [1/band, band] are no difference worth claiming (1.1: ±10%) */
  band: number;
  /** the chance of one false claim or more in a study (Holm over its ratios) */
  alpha: number;
  /** usable pairs a ratio needs for an interval; fewer: withheld, with the reason */
  minPairs: number;
  /** successful calls (or commits) a step needs for a rate: one more or less then moves it by 10% at most, the band */
  minCalls: number;
  /**
   * the share of the machine's CPU other processes (and steal) may take during a step before its
   * pair is withheld: a quiet machine's daemons take a few percent; a quarter of a 2-core machine
   * is half a core gone to something else, enough to make a step measure its neighbour
   */
  busyShare: number;
  /** ... and by how much that share may move between a pair's two steps */
  shiftShare: number;
}

export const CLAIM_RULES: Readonly<ClaimRules> = {
  band: 1.1,
  alpha: 0.05,
  minPairs: 3,
  minCalls: 10,
  busyShare: 0.25,
  shiftShare: 0.1,
};

/**
 * claim: wholly outside the band and sure across the study; no-difference: wholly inside it on
 * every planned iteration; undecided ("~"): neither; withheld: too few usable pairs for an interval.
 */
export type Verdict = 'claim' | 'no-difference' | 'undecided' | 'withheld';

/** One iteration's pair: the ratio (other side's rate over the base side's), or why it was left out. */
export interface PairedRatio {
  iteration: number;
  ratio?: number;
  /** why no ratio: too few calls, a call outlasted the step, the machine was busy */
  withheld?: string;
}

/** How the ratios were measured: the iterations planned and, with `study --budget`, the extra ones. */
export interface RatioDesign {
  /** iterations the design planned (the study's --iterations) */
  planned: number;
  /** --budget: iterations were added in batches of this many until the ratios settled */
  sequential?: { batch: number };
}

/** What a ratio rests on once the withheld pairs are left out, at the look it settled. */
export interface RatioEvidence {
  /** the usable paired ratios */
  ratios: number[];
  planned: number;
  /** iterations measured when it was judged (planned, or more with --budget) */
  iterations: number;
  /** each left-out pair's reason */
  withheld: string[];
  /** --budget: the look it was judged at (1: after the planned iterations) */
  looks?: number;
  /** it reached a verdict of claim or no difference at that look, with the study's ratio count as the family (Bonferroni) */
  settled: boolean;
}

export interface RatioVerdict extends RatioInterval {
  verdict: Verdict;
  /** a claim's side: above the band (the other side is faster) or below it */
  side?: 'above' | 'below';
  /** the per-ratio test's p-value against the band (1 with fewer than 2 pairs) */
  pValue: number;
  /** after the looks' penalty and Holm over the family: a claim needs it at or below alpha */
  adjusted: number;
  /** the ratios of the study judged together (Holm's family) */
  family: number;
  planned: number;
  iterations: number;
  looks?: number;
  withheld: string[];
  /** the log ratios' mean and standard deviation (2 pairs and more): a rerun's chance of the same verdict comes from them */
  log?: { mean: number; sd: number };
  /** undecided or withheld: why, in words */
  why?: string;
  band: number;
}

/** Two one-sided t-tests of the log ratios against ±ln(band): the smaller p-value, doubled (either side may be claimed). */
export function bandTest(ratios: readonly number[], band: number): { pValue: number; mean: number; sd: number } {
  const xs = ratios.filter((r) => r > 0 && Number.isFinite(r)).map(Math.log);
  const n = xs.length;
  if (n < 2) return { pValue: 1, mean: xs[0] ?? 0, sd: 0 };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const edge = Math.log(band);
  const se = sd / Math.sqrt(n);
  // identical ratios: no spread to test against, the mean alone decides
  const above = se > 0 ? studentTUpper((mean - edge) / se, n - 1) : mean > edge ? 0 : 1;
  const below = se > 0 ? studentTUpper(-(mean + edge) / se, n - 1) : mean < -edge ? 0 : 1;
  return { pValue: Math.min(1, 2 * Math.min(above, below)), mean, sd };
}

/** The looks' penalty (alpha spending): the L-th look's p-value counts L·(L+1) times. */
export const lookPenalty = (looks: number | undefined) => (looks === undefined ? 1 : looks * (looks + 1));

/**
 * Holm's step-down adjusted p-values, over a family of `family` hypotheses of which these are the
 * ones with a p-value (the others count as p = 1: later in the order, so they only make the
 * adjustment stricter).
 */
export function holm(pValues: readonly number[], family = pValues.length): number[] {
  const m = Math.max(family, pValues.length);
  const order = pValues.map((p, i) => [p, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(pValues.length);
  let running = 0;
  for (const [rank, [p, i]] of order.entries()) {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  }
  return out;
}

/** a share as a whole percentage (the report package's `pct` is out of the contract's reach) */
const percent = (x: number) => `${Math.round(x * 100)}%`;

interface Measured {
  e: RatioEvidence;
  interval?: ReturnType<typeof medianInterval>;
  test: ReturnType<typeof bandTest>;
  /** the p-value after the looks' penalty */
  looked: number;
}

function measured(e: RatioEvidence, rules: ClaimRules): Measured {
  const enough = e.ratios.length >= rules.minPairs;
  const test = enough ? bandTest(e.ratios, rules.band) : { pValue: 1, mean: 0, sd: 0 };
  return {
    e,
    interval: enough ? medianInterval(e.ratios, CONFIDENCE) : undefined,
    test,
    looked: Math.min(1, test.pValue * lookPenalty(e.looks)),
  };
}

/** The verdict of one measured ratio, given its adjusted p-value. */
function decide(
  m: Measured,
  adjusted: number,
  family: number,
  rules: ClaimRules,
): Pick<RatioVerdict, 'verdict' | 'side' | 'why'> {
  const { e, interval: i } = m;
  const n = e.ratios.length;
  if (!i) {
    const reasons = summarise(e.withheld);
    return {
      verdict: 'withheld',
      why: `${n} of ${e.iterations} iterations usable${reasons ? ` (${reasons})` : ''}, fewer than the ${rules.minPairs} an interval needs`,
    };
  }
  const lowEdge = 1 / rules.band;
  const band = `±${Math.round((rules.band - 1) * 100)}%`;
  if (i.low > rules.band || i.high < lowEdge) {
    const side = i.low > rules.band ? 'above' : 'below';
    if (adjusted <= rules.alpha) return { verdict: 'claim', side };
    return {
      verdict: 'undecided',
      side,
      why: `outside the ${band} band, but not sure enough among the ${family} ratios judged together (p = ${m.test.pValue.toPrecision(2)}, ${adjusted.toPrecision(2)} adjusted; a claim needs ${rules.alpha})`,
    };
  }
  if (i.low >= lowEdge && i.high <= rules.band) {
    if (n < e.planned)
      return { verdict: 'undecided', why: `inside the ${band} band on ${n} of ${e.planned} planned iterations only` };
    if (i.confidence < MIN_CONFIDENCE)
      return {
        verdict: 'undecided',
        why: `inside the ${band} band, but ${n} iterations give an interval of ${percent(i.confidence)} only`,
      };
    return { verdict: 'no-difference' };
  }
  return { verdict: 'undecided', why: `the interval crosses an edge of the ${band} band` };
}

/** Reasons counted: "3 × the machine was busy, 1 × too few calls". */
function summarise(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, k]) => (k > 1 ? `${k} × ${r}` : r)).join('; ');
}

/**
 * The study's ratios judged together: each one's interval against the band, its test, Holm over
 * the family (the study's ratio count: `family`, at least the ratios given). `differs` on each
 * is "is a claim".
 */
export function judgeRatios(
  evidence: readonly RatioEvidence[],
  options: { rules?: ClaimRules; family?: number } = {},
): RatioVerdict[] {
  const rules = options.rules ?? CLAIM_RULES;
  const family = Math.max(options.family ?? evidence.length, evidence.length);
  const all = evidence.map((e) => measured(e, rules));
  const tested = all.filter((m) => m.interval);
  const adjusted = holm(
    tested.map((m) => m.looked),
    family,
  );
  return all.map((m) => {
    const a = m.interval ? adjusted[tested.indexOf(m)]! : 1;
    return verdictOf(m, a, family, rules);
  });
}

function verdictOf(m: Measured, adjusted: number, family: number, rules: ClaimRules): RatioVerdict {
  const { e, interval: i, test } = m;
  const decided = decide(m, adjusted, family, rules);
  const n = e.ratios.length;
  return {
    // no interval: the bare median of what there is (a run of 1 or 2 iterations still shows its ratio)
    median: i?.median ?? median(e.ratios),
    low: i?.low ?? Number.NaN,
    high: i?.high ?? Number.NaN,
    confidence: i?.confidence ?? 0,
    n,
    differs: decided.verdict === 'claim',
    ...decided,
    pValue: test.pValue,
    adjusted,
    family,
    planned: e.planned,
    iterations: e.iterations,
    ...(e.looks === undefined ? {} : { looks: e.looks }),
    withheld: e.withheld,
    ...(n >= 2 && i ? { log: { mean: test.mean, sd: test.sd } } : {}),
    band: rules.band,
  };
}

/** One ratio alone, its family the study's ratio count (Bonferroni: what Holm's first step asks). */
export const judgeRatio = (e: RatioEvidence, options: { rules?: ClaimRules; family?: number } = {}): RatioVerdict =>
  judgeRatios([e], options)[0]!;

/** Settled: decided against the band (a claim, or no difference), nothing more to measure. */
export const isSettled = (v: Pick<RatioVerdict, 'verdict'>) => v.verdict === 'claim' || v.verdict === 'no-difference';

/**
 * A ratio's evidence from its pairs: without --budget, every pair; with it, the pairs up to the
 * first look at which it settled (its iterations then: "the iterations each ratio took"), or all
 * of them if it never did. A look is the planned iterations, then each batch more. Whether it
 * settled is judged with the study's ratio count as the family, Bonferroni (Holm's strictest
 * step), so it depends on this ratio alone and reads the same from the files afterwards.
 */
export function ratioEvidence(
  pairs: readonly PairedRatio[],
  design: RatioDesign,
  options: { rules?: ClaimRules; family: number },
): RatioEvidence {
  const rules = options.rules ?? CLAIM_RULES;
  const last = Math.max(design.planned, ...pairs.map((p) => p.iteration));
  const at = (iterations: number, looks?: number): RatioEvidence => {
    const taken = pairs.filter((p) => p.iteration <= iterations);
    const e: RatioEvidence = {
      ratios: taken.flatMap((p) => (p.ratio !== undefined && !p.withheld ? [p.ratio] : [])),
      planned: design.planned,
      iterations,
      withheld: taken.flatMap((p) => (p.withheld ? [p.withheld] : p.ratio === undefined ? ['not measured'] : [])),
      ...(looks === undefined ? {} : { looks }),
      settled: false,
    };
    return { ...e, settled: isSettled(judgeRatio(e, { rules, family: options.family })) };
  };
  if (!design.sequential) return at(last);
  const batch = Math.max(1, design.sequential.batch);
  const looks = 1 + Math.ceil(Math.max(0, last - design.planned) / batch);
  for (let look = 1; look < looks; look++) {
    const e = at(design.planned + (look - 1) * batch, look);
    if (e.settled) return e;
  }
  return at(last, looks);
}

/**
 * A ratio of a design with fewer iterations than an interval needs (a run of 1 or 2), nothing
 * left out: no verdict to give, its bare median said as such rather than "withheld".
 */
export const isBare = (v: Pick<RatioVerdict, 'verdict' | 'withheld' | 'n' | 'iterations'>): boolean =>
  v.verdict === 'withheld' && v.withheld.length === 0 && v.n > 0 && v.n === v.iterations;

/** Withheld, and not for want of planned iterations (`isBare`): some pairs were left out, with a reason. */
export const isWithheld = (v: Pick<RatioVerdict, 'verdict' | 'withheld' | 'n' | 'iterations'>): boolean =>
  v.verdict === 'withheld' && !isBare(v);

/** How a verdict reads; `formatRatio` gives the same for a judged ratio. */
export function formatVerdict(v: RatioVerdict): string {
  const edges = [1, 1 / v.band, v.band];
  const figure = (x: number) => ratioFigure(x, edges);
  const n = v.n;
  const took = v.iterations;
  const count = n !== took || took !== v.planned ? ` (${n === took ? '' : `${n} of `}${took} iterations)` : '';
  if (v.verdict === 'withheld') {
    if (isBare(v)) return `${figure(v.median)}x (${n} iteration${n === 1 ? '' : 's'})`;
    const reasons = summarise(v.withheld);
    return `withheld (${n} of ${took} iterations${reasons ? `: ${reasons}` : ''})`;
  }
  const range = `${figure(v.low)}–${figure(v.high)}`;
  if (v.verdict === 'claim') return `${figure(v.median)}x [${range}]${count}`;
  if (v.verdict === 'no-difference') return `no difference (${range})${count}`;
  return `~ (${range})${count}`;
}

/**
 * How a ratio reads: judged by the claims rules (`judgeRatios`), by its verdict (`formatVerdict`).
 * Otherwise as before the rules: `1.32x [1.10–1.58]` when its interval excludes 1 at 90% or
 * more, `~ (0.91–1.12)` when not, the bare ratio with its single iteration said when there is
 * no interval. Bounds carry the digits that show which side of 1 they fall (0.997, not 1.00).
 */
export function formatRatio(r: RatioInterval): string {
  if ('verdict' in r) return formatVerdict(r as RatioVerdict);
  const figure = (x: number) => ratioFigure(x);
  if (r.n < 2) return `${figure(r.median)}x (1 iteration)`;
  const range = `${figure(r.low)}–${figure(r.high)}`;
  return r.differs ? `${figure(r.median)}x [${range}]` : `~ (${range})`;
}

/** A step's interference, as the load generator records it (`StepResult.interference`). */
export type StepInterferenceShares = Pick<NonNullable<StepResult['interference']>, 'otherCpuShare' | 'stealShare'>;

/**
 * Why a pair of steps gave no ratio, in the words every report uses (a comparison's `withheld`):
 * the pairing's own rules (measures.ts: a side unmeasured, nothing to rate, a call outlasting its
 * step), then the claims rules' (`pairWithheld`).
 */
export const WITHHELD = {
  unpaired: 'not measured',
  empty: 'no successful call',
  overran: 'a call outlasted its step',
  few: 'too few calls for a rate',
  busy: 'the machine was busy',
  shifted: 'other processes loaded one side more',
} as const;

/** What other processes (and steal) took of the machine's CPU during a step. */
export const otherShare = (s: StepInterferenceShares): number => s.otherCpuShare + s.stealShare;

/**
 * Why a pair of steps (the two sides of one iteration) gives no ratio, if it gives none: a side
 * with fewer than `minCalls` successful calls (commits, for transfers) for a rate, or the machine
 * disturbed (`pairDisturbed`). A call outlasting its step is the pairing's own rule (measures).
 */
export function pairWithheld(
  base: Pick<StepResult, 'calls' | 'commits' | 'interference'>,
  other: Pick<StepResult, 'calls' | 'commits' | 'interference'>,
  rules: ClaimRules = CLAIM_RULES,
): string | undefined {
  const units = (s: Pick<StepResult, 'calls' | 'commits'>) => s.commits?.committed ?? s.calls;
  if (Math.min(units(base), units(other)) < rules.minCalls) return WITHHELD.few;
  return pairDisturbed(base.interference, other.interference, rules);
}

/**
 * Whether other processes disturbed a pair of steps: their CPU (steal included) above
 * `busyShare` of the machine during either step (`the machine was busy`), or moving between the
 * two by more than `shiftShare` of it (a load that lands on one side only biases the ratio; one
 * that lands on both alike, the alternation takes care of). Unmeasured steps are not judged.
 */
export function pairDisturbed(
  a: StepInterferenceShares | undefined,
  b: StepInterferenceShares | undefined,
  rules: ClaimRules = CLAIM_RULES,
): string | undefined {
  if (!a || !b) return undefined;
  if (Math.max(otherShare(a), otherShare(b)) > rules.busyShare) return WITHHELD.busy;
  if (Math.abs(otherShare(a) - otherShare(b)) > rules.shiftShare) return WITHHELD.shifted;
  return undefined;
}

/** A step other processes made busy (`pairDisturbed`'s first rule), for a report's "the machine was busy". */
export const stepBusy = (s: Pick<StepResult, 'interference'>, rules: ClaimRules = CLAIM_RULES): boolean =>
  s.interference !== undefined && otherShare(s.interference) > rules.busyShare;

/**
 * A rerun's verdict on one ratio, from the two runs' verdicts (not from where one's median falls
 * in the other's interval: two identical runs put it inside about 83% of the time whatever the
 * truth). Symmetric: the runs swapped, newly-claimed and claim-lost swap, the rest stay.
 */
export type RerunVerdict =
  | 'reproduced'
  | 'flipped'
  | 'newly-claimed'
  | 'claim-lost'
  | 'no-difference-both'
  | 'unsettled'
  | 'withheld';

/** What each rerun verdict means for the reader: agreement, disagreement, or nothing to compare. */
export const RERUN_TONE: Readonly<Record<RerunVerdict, 'good' | 'bad' | 'neutral'>> = {
  reproduced: 'good',
  'no-difference-both': 'good',
  flipped: 'bad',
  'newly-claimed': 'bad',
  'claim-lost': 'bad',
  unsettled: 'neutral',
  withheld: 'neutral',
};

export function rerunVerdict(
  earlier: Pick<RatioVerdict, 'verdict' | 'side'>,
  now: Pick<RatioVerdict, 'verdict' | 'side'>,
): RerunVerdict {
  // a ratio one run could not judge (a busy machine, too few pairs) neither agrees nor disagrees
  if (earlier.verdict === 'withheld' || now.verdict === 'withheld') return 'withheld';
  const a = earlier.verdict === 'claim';
  const b = now.verdict === 'claim';
  if (a && b) return earlier.side === now.side ? 'reproduced' : 'flipped';
  if (a) return 'claim-lost';
  if (b) return 'newly-claimed';
  if (earlier.verdict === 'no-difference' && now.verdict === 'no-difference') return 'no-difference-both';
  return 'unsettled';
}

/**
 * The chance the same design claims this ratio again, were its measured effect and spread the
 * truth: its interval beyond the band edge (enough of n pairs past it) times the test clearing
 * the family's first Holm step (Bonferroni; the noncentral t by Abramowitz and Stegun 26.7.10).
 * An estimate: a claim's effect is measured a little large (it was picked for clearing the bar).
 */
export function claimPower(v: RatioVerdict, rules: ClaimRules = CLAIM_RULES): number {
  if (!v.log || v.n < 2) return 0;
  const { mean, sd } = v.log;
  const edge = Math.log(rules.band);
  const beyond = Math.abs(mean) - edge;
  if (sd === 0) return beyond > 0 ? 1 : 0;
  const n = v.n;
  const df = n - 1;
  const k = intervalRank(n, CONFIDENCE);
  const interval = binomialUpper(n, normalCdf(beyond / sd), n - k + 1);
  const critical = studentTQuantileUpper(rules.alpha / v.family / 2, df);
  const delta = beyond / (sd / Math.sqrt(n));
  const test = normalCdf((delta - critical * (1 - 1 / (4 * df))) / Math.sqrt(1 + (critical * critical) / (2 * df)));
  return interval * test;
}

export interface RerunExpectation {
  /** ratios the two runs would decide differently (one claims, the other not) by chance alone: Σ 2π(1−π) over the claims */
  disagreements: number;
  /** the chance of one false claim or more in either run: 2 × alpha (each run's Holm) */
  falseClaims: number;
}

/**
 * What two runs of the same study disagree on by chance: for each ratio claimed in either run,
 * π its chance of being claimed (claimPower, averaged over the runs that claimed it) and
 * 2π(1−π) the chance one run claims it and the other not; plus the false claims the rules allow.
 */
export function rerunExpectation(
  pairs: readonly { earlier: RatioVerdict; now: RatioVerdict }[],
  rules: ClaimRules = CLAIM_RULES,
): RerunExpectation {
  let disagreements = 0;
  for (const { earlier, now } of pairs) {
    if (earlier.verdict === 'withheld' || now.verdict === 'withheld') continue;
    const powers = [earlier, now].filter((v) => v.verdict === 'claim').map((v) => claimPower(v, rules));
    if (!powers.length) continue;
    const p = powers.reduce((a, b) => a + b, 0) / powers.length;
    disagreements += 2 * p * (1 - p);
  }
  return { disagreements, falseClaims: Math.min(1, 2 * rules.alpha) };
}
