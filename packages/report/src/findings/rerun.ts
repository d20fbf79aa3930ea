import { formatRatio, type ResultFile } from '@mcp-db-bench/contract';
import type { Cell } from '../render/html/types.js';
import { type Claim, type Finding, intervalCell } from './common.js';
import { scalingClaims } from './concurrency.js';
import { engineClaims } from './engines.js';
import { indexClaims } from './index-effect.js';

/**
 * Every ratio the study's findings claim with an interval (two iterations or more: one gives a
 * bare ratio, no claim), each named so that another run's same claim can be found.
 */
export const studyClaims = (files: readonly ResultFile[]): Claim[] =>
  [...indexClaims(files), ...scalingClaims(files), ...engineClaims(files)].filter((c) => c.ratio.n > 1);

type Verdict = 'inside' | 'outside' | 'flipped';

/** Where this run's median falls against the earlier run's interval; flipped: both claim a difference, on opposite sides of 1. */
function verdict(earlier: Claim['ratio'], now: Claim['ratio']): Verdict {
  if (now.median >= earlier.low && now.median <= earlier.high) return 'inside';
  const side = (r: Claim['ratio']) => (r.median > 1 ? 1 : -1);
  return earlier.differs && now.differs && side(earlier) !== side(now) ? 'flipped' : 'outside';
}

/**
 * The study run again: each ratio of this run against the same ratio of an earlier run. A ratio
 * holds on a rerun when its median falls inside the earlier interval; the ones that do not are
 * listed first.
 */
export function rerunAgreement(earlier: readonly ResultFile[], files: readonly ResultFile[]): Finding | undefined {
  const before = new Map(studyClaims(earlier).map((c) => [`${c.finding}\u0000${c.what}`, c.ratio]));
  const rows = studyClaims(files).flatMap((c) => {
    const then = before.get(`${c.finding}\u0000${c.what}`);
    return then ? [{ c, then, verdict: verdict(then, c.ratio) }] : [];
  });
  if (!rows.length) return undefined;
  const count = (v: Verdict) => rows.filter((r) => r.verdict === v).length;
  const order: Verdict[] = ['flipped', 'outside', 'inside'];
  rows.sort((a, b) => order.indexOf(a.verdict) - order.indexOf(b.verdict));
  const commands = [...new Set(earlier.flatMap((f) => (f.config.command ? [f.config.command] : [])))];
  return {
    id: 'rerun',
    title: 'Against the earlier run',
    note:
      `${count('inside')} of ${rows.length} ratios of this run fall inside the earlier run's interval; ` +
      `${count('outside')} outside it, ${count('flipped')} flipped (both runs claim a difference, on opposite sides ` +
      'of 1). Those not inside come first. The earlier run was measured by the commands below.',
    head: ['finding', 'what', 'earlier run', 'this run', 'median', 'verdict'],
    rows: rows.map(({ c, then, verdict }): Cell[] => [
      c.finding,
      c.what,
      formatRatio(then),
      intervalCell(c.ratio, formatRatio(c.ratio)),
      { text: `${c.ratio.median.toFixed(2)}x`, value: c.ratio.median },
      { text: verdict, value: order.indexOf(verdict), tone: verdict === 'inside' ? 'good' : 'bad' },
    ]),
    commands,
  };
}
