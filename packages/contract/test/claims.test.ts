import { describe, expect, it } from 'vitest';
import {
  bandTest,
  CLAIM_RULES,
  claimPower,
  formatRatio,
  formatVerdict,
  holm,
  isSettled,
  judgeRatio,
  judgeRatios,
  type PairedRatio,
  pairDisturbed,
  pairWithheld,
  type RatioEvidence,
  type RatioVerdict,
  RERUN_TONE,
  ratioEvidence,
  rerunExpectation,
  rerunVerdict,
  WITHHELD,
} from '../src/claims.js';
import { ratioFigure, ratioInterval } from '../src/interval.js';
import { Random } from '../src/random.js';
import { studentTQuantileUpper, studentTUpper } from '../src/stats.js';

/** Evidence of planned iterations with every pair usable. */
const evidence = (ratios: number[], planned = ratios.length): RatioEvidence => ({
  ratios,
  planned,
  iterations: planned,
  withheld: Array.from({ length: planned - ratios.length }, () => 'a call outlasted its step'),
  settled: false,
});

/** A normal draw (Box-Muller) from the contract's seeded stream. */
const normal = (rng: Random) => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());

/** A ratio's n paired ratios around `truth`, log-normal noise of `sd`. */
const pairs = (rng: Random, truth: number, sd: number, n = 5) =>
  Array.from({ length: n }, () => truth * Math.exp(sd * normal(rng)));

describe('the distributions', () => {
  it("gives Student's t tails and quantiles as the tables do", () => {
    expect(studentTUpper(2.776, 4)).toBeCloseTo(0.025, 4);
    expect(studentTUpper(12.706, 1)).toBeCloseTo(0.025, 4);
    expect(studentTUpper(-2.776, 4)).toBeCloseTo(0.975, 4);
    expect(studentTUpper(1.96, 1e6)).toBeCloseTo(0.025, 4);
    expect(studentTQuantileUpper(0.025, 4)).toBeCloseTo(2.776, 3);
    expect(studentTQuantileUpper(0.005, 10)).toBeCloseTo(3.169, 3);
  });
});

describe('a ratio against the band', () => {
  it('reads an interval wholly above 1 but inside the ±10% band as no difference', () => {
    const ratios = [1.02, 1.04, 1.05, 1.03, 1.06];
    // the rule before the band: a 3-6% difference with a tight interval was a finding
    expect(ratioInterval(ratios)!.differs).toBe(true);
    const v = judgeRatio(evidence(ratios), { family: 100 });
    expect(v.verdict).toBe('no-difference');
    expect(v.differs).toBe(false);
    expect(formatVerdict(v)).toBe('no difference (1.02–1.06)');
    expect(formatRatio(v)).toBe(formatVerdict(v));
  });

  it('claims 4 of 5 pairs at 33x to 82x, saying on how many iterations', () => {
    const e = ratioEvidence(
      [
        { iteration: 1, ratio: 34.8 },
        { iteration: 2, ratio: 52.1 },
        { iteration: 3, withheld: 'a call outlasted its step' },
        { iteration: 4, ratio: 79.6 },
        { iteration: 5, ratio: 61.0 },
      ],
      { planned: 5 },
      { family: 100 },
    );
    expect(e.ratios).toHaveLength(4);
    const v = judgeRatio(e, { family: 100 });
    // the rule before: 4 pairs reach 87.5% only, so "no difference measured" beside 33x to 82x
    expect(ratioInterval(e.ratios)!.differs).toBe(false);
    expect(v.verdict).toBe('claim');
    expect(v.side).toBe('above');
    expect(v.adjusted).toBeLessThanOrEqual(CLAIM_RULES.alpha);
    expect(formatVerdict(v)).toBe('56.5x [34.8–79.6] (4 of 5 iterations)');
  });

  it('reads an interval across a band edge as undecided, and one beyond it that is not sure enough too', () => {
    const crossing = judgeRatio(evidence([1.05, 1.12, 1.2, 1.15, 1.08]), { family: 100 });
    expect(crossing.verdict).toBe('undecided');
    expect(crossing.why).toContain('crosses an edge of the ±10% band');
    expect(formatVerdict(crossing)).toBe('~ (1.05–1.20)');
    // wholly beyond the band, but spread so wide that 100 ratios' worth of chance could explain it
    const unsure = judgeRatio(evidence([1.3, 1.5, 2.4, 1.4, 3.1]), { family: 100 });
    expect(unsure.verdict).toBe('undecided');
    expect(unsure.why).toMatch(/not sure enough among the 100 ratios judged together/);
    // the same alone is a claim
    expect(judgeRatio(evidence([1.3, 1.5, 2.4, 1.4, 3.1]), { family: 1 }).verdict).toBe('claim');
  });

  it('never reads fewer pairs than planned as no difference, and withholds an interval below the minimum', () => {
    const fewer = judgeRatio(evidence([1.01, 0.99, 1.0, 1.02], 5), { family: 10 });
    expect(fewer.verdict).toBe('undecided');
    expect(fewer.why).toBe('inside the ±10% band on 4 of 5 planned iterations only');
    expect(formatVerdict(fewer)).toBe('~ (0.99–1.02) (4 of 5 iterations)');
    const two = judgeRatio(evidence([40, 45], 5), { family: 10 });
    expect(two.verdict).toBe('withheld');
    expect(two.why).toBe(
      '2 of 5 iterations usable (3 × a call outlasted its step), fewer than the 3 an interval needs',
    );
    expect(formatVerdict(two)).toBe('withheld (2 of 5 iterations: 3 × a call outlasted its step)');
    // a design of one iteration left nothing out: its bare ratio, said so
    const one = judgeRatio(evidence([1.32], 1), { family: 10 });
    expect(one.verdict).toBe('withheld');
    expect(formatVerdict(one)).toBe('1.32x (1 iteration)');
    // three planned iterations only: inside the band, but a 75% interval cannot say no difference
    expect(judgeRatio(evidence([1.01, 0.99, 1.0]), { family: 10 }).verdict).toBe('undecided');
  });

  it('prints bounds with the digits that show which side of 1 and the band edges they fall', () => {
    expect(ratioFigure(0.997)).toBe('0.997');
    expect(ratioFigure(0.998)).toBe('0.998');
    expect(ratioFigure(1.004)).toBe('1.004');
    expect(ratioFigure(1)).toBe('1.00');
    expect(ratioFigure(0.905, [1, 1 / 1.1, 1.1])).toBe('0.905');
    expect(ratioFigure(1.0996, [1, 1 / 1.1, 1.1])).toBe('1.0996');
    expect(ratioFigure(74.2)).toBe('74.2');
    expect(formatRatio(ratioInterval([0.83, 0.9, 0.95, 0.92, 0.997])!)).toBe('0.92x [0.83–0.997]');
  });
});

describe('false claims across a study', () => {
  it("adjusts p-values by Holm's step-down over the family", () => {
    expect(holm([0.01, 0.04, 0.03, 0.005])).toEqual([0.03, 0.06, 0.06, 0.02]);
    // two more ratios in the family without a p-value: stricter
    expect(holm([0.01], 3)).toEqual([0.03]);
  });

  /**
   * 200 simulated studies of 100 ratios on 5 iterations where nothing differs (true ratio 1,
   * noise of ±15% per pair, and one pair in five hit by a burst that halves or doubles it). The
   * rule before claimed a ratio when its 5 pairs fell on one side of 1: 2/32 of them, about 6
   * per study. Holm at alpha = 5% bounds the chance of any false claim in a study by 5%; here,
   * far from the band's edges, it is nearly 0.
   */
  it('claims next to nothing in null studies, where the rule before claimed about 6 per study', () => {
    const rng = new Random(55);
    const studies = 200;
    let before = 0;
    let after = 0;
    let studiesWithOne = 0;
    for (let s = 0; s < studies; s++) {
      const ratios = Array.from({ length: 100 }, () =>
        pairs(rng, 1, 0.15).map((r) => (rng.chance(0.2) ? r * (rng.chance(0.5) ? 0.5 : 2) : r)),
      );
      before += ratios.filter((r) => ratioInterval(r)!.differs).length;
      const claims = judgeRatios(ratios.map((r) => evidence(r))).filter((v) => v.verdict === 'claim').length;
      after += claims;
      if (claims) studiesWithOne++;
    }
    expect(before / studies).toBeGreaterThan(4);
    expect(before / studies).toBeLessThan(8.5);
    expect(after).toBeLessThanOrEqual(2);
    expect(studiesWithOne / studies).toBeLessThanOrEqual(CLAIM_RULES.alpha);
  }, 120_000);

  /**
   * The worst case for the rules: every true ratio exactly at the band's edge (1.1), tight
   * noise. Holm's bound: one false claim or more in at most alpha = 5% of studies; 400 studies,
   * so at most 20 expected, and 20 + 3 standard deviations (33) would be a failure of the rules.
   */
  it('keeps studies with a false claim at or below alpha when every ratio sits on the band edge', () => {
    const rng = new Random(1055);
    const studies = 400;
    let withClaim = 0;
    for (let s = 0; s < studies; s++) {
      const verdicts = judgeRatios(Array.from({ length: 100 }, () => evidence(pairs(rng, 1.1, 0.05))));
      if (verdicts.some((v) => v.verdict === 'claim')) withClaim++;
    }
    const expected = studies * CLAIM_RULES.alpha;
    expect(withClaim).toBeLessThanOrEqual(expected + 3 * Math.sqrt(expected * (1 - CLAIM_RULES.alpha)));
  }, 120_000);

  it('still claims real effects of the size a study reports on 5 iterations', () => {
    const rng = new Random(7);
    const real = Array.from({ length: 40 }, () => evidence(pairs(rng, 1.6, 0.05)));
    const none = Array.from({ length: 60 }, () => evidence(pairs(rng, 1, 0.1)));
    const verdicts = judgeRatios([...real, ...none]);
    expect(verdicts.slice(0, 40).filter((v) => v.verdict === 'claim').length).toBeGreaterThanOrEqual(36);
    expect(verdicts.slice(40).filter((v) => v.verdict === 'claim')).toEqual([]);
  });

  it('charges every extra look (--budget): a null ratio gains no claim by being measured until it settles', () => {
    const rng = new Random(2055);
    const studies = 200;
    const family = 100;
    let withClaim = 0;
    for (let s = 0; s < studies; s++) {
      const all = Array.from({ length: family }, () => {
        const ratios = pairs(rng, 1.1, 0.05, 15);
        const paired: PairedRatio[] = ratios.map((ratio, i) => ({ iteration: i + 1, ratio }));
        return ratioEvidence(paired, { planned: 5, sequential: { batch: 2 } }, { family });
      });
      if (judgeRatios(all).some((v) => v.verdict === 'claim')) withClaim++;
    }
    const expected = studies * CLAIM_RULES.alpha;
    expect(withClaim).toBeLessThanOrEqual(expected + 3 * Math.sqrt(expected * (1 - CLAIM_RULES.alpha)));
  }, 120_000);
});

describe('more iterations until a ratio settles', () => {
  const series = (ratios: number[]): PairedRatio[] => ratios.map((ratio, i) => ({ iteration: i + 1, ratio }));

  it('takes the pairs up to the first look at which the ratio settled, and says how many', () => {
    // across the band's edge on the first 5, clearly inside it by 9
    const ratios = [1.12, 0.98, 1.01, 1.0, 0.99, 1.0, 1.01, 0.99, 1.0, 1.02, 1.0];
    const e = ratioEvidence(series(ratios), { planned: 5, sequential: { batch: 2 } }, { family: 50 });
    expect(e.settled).toBe(true);
    expect(e.iterations).toBe(9);
    expect(e.looks).toBe(3);
    const v = judgeRatio(e, { family: 50 });
    expect(v.verdict).toBe('no-difference');
    expect(formatVerdict(v)).toBe('no difference (0.99–1.01) (9 iterations)');
  });

  it('settles at the first look when the planned iterations decide, and stays unsettled across an edge', () => {
    const clear = ratioEvidence(
      series([2, 2.1, 1.9, 2.05, 2.0, 2.2, 1.8]),
      { planned: 5, sequential: { batch: 2 } },
      { family: 50 },
    );
    expect([clear.settled, clear.iterations, clear.looks]).toEqual([true, 5, 1]);
    const edge = ratioEvidence(
      series([1.05, 1.15, 1.1, 1.12, 1.08, 1.09, 1.11]),
      { planned: 5, sequential: { batch: 2 } },
      { family: 50 },
    );
    expect([edge.settled, edge.iterations, edge.looks]).toEqual([false, 7, 2]);
    expect(isSettled(judgeRatio(edge, { family: 50 }))).toBe(false);
  });

  it('without a budget, judges every pair at once', () => {
    const e = ratioEvidence(series([2, 2.1, 1.9, 2.05, 2.0]), { planned: 5 }, { family: 50 });
    expect(e.looks).toBeUndefined();
    expect(e.iterations).toBe(5);
    expect(bandTest(e.ratios, 1.1).pValue).toBeLessThan(1e-4);
  });
});

describe('pairs withheld', () => {
  const step = (calls: number, otherCpuShare?: number) => ({
    calls,
    ...(otherCpuShare === undefined
      ? {}
      : { interference: { otherCpuShare, stealShare: 0, ownCpuShare: 0.3, capacityMs: 4000 } }),
  });

  it('withholds a pair with too few calls, or on a busy machine, or with the load moving between its sides', () => {
    expect(pairWithheld(step(1), step(400))).toBe(WITHHELD.few);
    expect(
      pairWithheld({ calls: 500, commits: { op: 'commit', committed: 4, conflicts: 0, failed: 0 } }, step(400)),
    ).toBe('too few calls for a rate');
    expect(pairWithheld(step(400, 0.62), step(400, 0.55))).toBe('the machine was busy');
    // a quarter of the machine is the most other processes may take: half a core of two
    expect(pairWithheld(step(400, 0.26), step(400, 0.24))).toBe(WITHHELD.busy);
    expect(pairWithheld(step(400, 0.05), step(400, 0.2))).toBe('other processes loaded one side more');
    expect(pairWithheld(step(400, 0.2), step(400, 0.25))).toBeUndefined();
    // a quiet machine's few percent
    expect(pairWithheld(step(400, 0.02), step(400, 0.04))).toBeUndefined();
    // steps not measured (another platform, older files): not judged
    expect(pairDisturbed(undefined, step(400, 0.9).interference)).toBeUndefined();
  });
});

describe('a rerun, judged by verdicts', () => {
  const claim = (ratios: number[], family = 20): RatioVerdict => judgeRatio(evidence(ratios), { family });
  const up = claim([2, 2.1, 1.9, 2.05, 2.0]);
  const down = claim([0.5, 0.48, 0.52, 0.5, 0.49]);
  const same = judgeRatio(evidence([1.0, 1.01, 0.99, 1.02, 1.0]), { family: 20 });
  const unsure = judgeRatio(evidence([1.05, 1.2, 1.1, 1.15, 1.0]), { family: 20 });
  const withheld = judgeRatio(evidence([2], 5), { family: 20 });

  it('names each case, symmetric between the runs', () => {
    expect([up.verdict, down.verdict, same.verdict, unsure.verdict, withheld.verdict]).toEqual([
      'claim',
      'claim',
      'no-difference',
      'undecided',
      'withheld',
    ]);
    expect(rerunVerdict(up, up)).toBe('reproduced');
    expect(rerunVerdict(up, down)).toBe('flipped');
    expect(rerunVerdict(down, up)).toBe('flipped');
    expect(rerunVerdict(up, unsure)).toBe('claim-lost');
    expect(rerunVerdict(unsure, up)).toBe('newly-claimed');
    expect(rerunVerdict(same, up)).toBe('newly-claimed');
    expect(rerunVerdict(same, same)).toBe('no-difference-both');
    expect(rerunVerdict(same, unsure)).toBe('unsettled');
    expect(rerunVerdict(unsure, withheld)).toBe('withheld');
    // a claim beside a ratio the other run withheld (a busy machine) is not a claim lost
    expect(rerunVerdict(up, withheld)).toBe('withheld');
    expect(rerunVerdict(withheld, down)).toBe('withheld');
    const all = [up, down, same, unsure, withheld];
    const swapped = { 'newly-claimed': 'claim-lost', 'claim-lost': 'newly-claimed' } as Record<string, string>;
    for (const a of all)
      for (const b of all) expect(rerunVerdict(b, a)).toBe(swapped[rerunVerdict(a, b)] ?? rerunVerdict(a, b));
  });

  it('colours agreement good, disagreement bad, and nothing to compare neutral', () => {
    expect(RERUN_TONE.reproduced).toBe('good');
    expect(RERUN_TONE['no-difference-both']).toBe('good');
    expect(RERUN_TONE['newly-claimed']).toBe('bad');
    expect(RERUN_TONE['claim-lost']).toBe('bad');
    expect(RERUN_TONE.flipped).toBe('bad');
    expect(RERUN_TONE.unsettled).toBe('neutral');
  });

  it('states what chance alone would make the runs disagree on', () => {
    // a clear effect is claimed again almost surely; one just past the bar about as often as not
    expect(claimPower(up)).toBeGreaterThan(0.99);
    const barely = claim([1.2, 1.3, 1.25, 1.35, 1.22], 5);
    expect(barely.verdict).toBe('claim');
    const p = claimPower(barely);
    expect(p).toBeGreaterThan(0.05);
    expect(p).toBeLessThan(0.95);
    const expected = rerunExpectation([
      { earlier: up, now: up },
      { earlier: barely, now: unsure },
      { earlier: same, now: same },
      // a claim beside a withheld ratio: nothing to compare, no disagreement expected
      { earlier: up, now: withheld },
    ]);
    expect(expected.disagreements).toBeCloseTo(2 * (1 - claimPower(up)) * claimPower(up) + 2 * p * (1 - p), 10);
    expect(expected.falseClaims).toBeCloseTo(0.1, 10);
  });
});
