import {
  type RatioVerdict,
  RERUN_TONE,
  type RerunVerdict,
  type ResultFile,
  rerunExpectation,
  rerunVerdict,
} from '@mcp-db-bench/contract';
import { int, ratio } from '../format.js';
import type { Cell } from '../render/html/types.js';
import { type Judged, judge } from '../verdicts.js';
import type { Claim, Finding } from './common.js';
import { scalingClaims } from './concurrency.js';
import { engineClaims } from './engines.js';
import { indexClaims } from './index-effect.js';
import { spreadClaims } from './server-spread.js';
import { serverClaims } from './servers.js';

/** Every ratio the study's findings show, with its verdict, each named so that another run's same ratio can be found. */
export const studyClaims = (files: readonly ResultFile[], j: Judged): Claim[] => [
  ...indexClaims(files, j),
  ...scalingClaims(files, j),
  ...engineClaims(files, j),
  ...serverClaims(files, j),
  ...spreadClaims(files, j),
];

/** How each rerun verdict reads, disagreements first (the order of the table). */
const WORDS: Record<RerunVerdict, string> = {
  flipped: 'flipped',
  'newly-claimed': 'newly claimed',
  'claim-lost': 'claim lost',
  unsettled: 'unsettled',
  withheld: 'withheld',
  reproduced: 'reproduced',
  'no-difference-both': 'no difference both times',
};
const ORDER = Object.keys(WORDS) as RerunVerdict[];
const CLAIMED: readonly RerunVerdict[] = ['reproduced', 'flipped', 'newly-claimed', 'claim-lost'];
const TONE = { good: 'good', bad: 'bad', neutral: 'noise' } as const;

/**
 * The study run again: each ratio of this run beside the same ratio of an earlier run, judged by
 * their verdicts (`rerunVerdict`: reproduced, flipped, newly claimed, claim lost, no difference
 * both times, unsettled, withheld), symmetric between the runs; with what chance alone would
 * make them disagree (`rerunExpectation`). Both runs are judged by the same band: `band`, or
 * this run's. The disagreements come first.
 */
export function rerunAgreement(
  earlier: readonly ResultFile[],
  files: readonly ResultFile[],
  options: { band?: number } = {},
): Finding | undefined {
  const now = judge(files, options);
  const then = judge(earlier, { band: now.rules.band });
  const before = new Map(studyClaims(earlier, then).map((c) => [`${c.finding}\u0000${c.what}`, c.verdict]));
  const rows = studyClaims(files, now).flatMap((c) => {
    const past = before.get(`${c.finding}\u0000${c.what}`);
    return past ? [{ c, past, verdict: rerunVerdict(past, c.verdict) }] : [];
  });
  if (!rows.length) return undefined;
  rows.sort((a, b) => ORDER.indexOf(a.verdict) - ORDER.indexOf(b.verdict));
  const commands = [...new Set(earlier.flatMap((f) => (f.config.command ? [f.config.command] : [])))];
  return {
    id: 'rerun',
    title: 'Against the earlier run',
    note: rerunNote(
      rows.map((r) => r.verdict),
      rows.map((r) => ({ earlier: r.past, now: r.c.verdict })),
      now,
    ),
    head: ['finding', 'what', 'earlier run', 'this run', 'verdict'],
    rows: rows.map(({ c, past, verdict }): Cell[] => [
      c.finding,
      c.what,
      ratio(past),
      ratio(c.verdict),
      { text: WORDS[verdict], value: ORDER.indexOf(verdict), tone: TONE[RERUN_TONE[verdict]] },
    ]),
    commands,
  };
}

/** The verdicts counted, and the rate chance alone explains beside them. */
function rerunNote(
  verdicts: readonly RerunVerdict[],
  pairs: readonly { earlier: RatioVerdict; now: RatioVerdict }[],
  j: Judged,
): string {
  const count = (v: RerunVerdict) => verdicts.filter((x) => x === v).length;
  const counted = ORDER.filter(count).map((v) => `${WORDS[v]} ${int(count(v))}`);
  const expected = rerunExpectation(pairs, j.rules);
  // a ratio claimed in either run and withheld in neither: its rerun verdict says which
  const claimed = verdicts.filter((v) => CLAIMED.includes(v)).length;
  return (
    `${int(verdicts.length)} ratios of both runs, judged by their verdicts (each run's ratios judged together, ` +
    `the same ±${Math.round((j.rules.band - 1) * 100)}% band): ${counted.join(', ')}. Reproduced and no ` +
    'difference both times are agreement; flipped, newly claimed and claim lost disagreement; unsettled ' +
    `(neither run claims it, and not both say no difference) and withheld (by either run) neither. ` +
    `${chance(expected, claimed)} The ` +
    'disagreements come first. The earlier run was measured by the commands below.'
  );
}

/** What chance alone explains: the disagreements expected were each claim's effect the truth, and the false-claim bound. */
function chance(expected: { disagreements: number; falseClaims: number }, claimed: number): string {
  const bound = `either run may hold a false claim with a chance of at most ${Math.round(expected.falseClaims * 100)}%.`;
  if (!claimed) return `Neither run claims a ratio, so none can be lost or newly claimed; ${bound}`;
  return (
    `By chance alone, were each claim's measured effect and spread the truth, about ${expected.disagreements.toFixed(1)} ` +
    `of the ${int(claimed)} ratios claimed in either run would be claimed in one run and not the other; and ${bound}`
  );
}
