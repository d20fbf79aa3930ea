/**
 * More iterations instead of false claims (`study --budget`): which of a study's ratios are
 * settled (decided against the practical band: a claim, or no difference) and which segments
 * still hold undecided ones, judged by the contract's claims rules; and a segment's extra
 * iterations merged into its file. The ratios are the file's own pairing (`comparisons`: each
 * index set against the first, each database against the first), the pairs the rules withhold
 * left out with their reason.
 */
import {
  CLAIM_RULES,
  type ClaimRules,
  type Comparison,
  overran,
  type PairedRatio,
  pairWithheld,
  type RatioDesign,
  type RatioEvidence,
  type ResultFile,
  ratioEvidence,
} from '@mcp-db-bench/contract';
import { comparisons, studyClaims } from '@mcp-db-bench/report';

const lastIteration = (file: ResultFile) => Math.max(file.config.iterations, ...file.steps.map((s) => s.iteration));

/** A comparison's pairs, one per iteration the file measured: its ratio, or why there is none. */
export function comparisonPairs(file: ResultFile, c: Comparison, rules: ClaimRules = CLAIM_RULES): PairedRatio[] {
  const step = (side: Comparison['base'], iteration: number) =>
    file.steps.find(
      (s) =>
        s.target === side.target &&
        s.indexes === side.indexes &&
        s.workload === c.workload &&
        s.agents === c.agents &&
        s.iteration === iteration,
    );
  return Array.from({ length: lastIteration(file) }, (_, i): PairedRatio => {
    const iteration = i + 1;
    const base = step(c.base, iteration);
    const other = step(c.other, iteration);
    if (!base || !other) return { iteration, withheld: 'not measured' };
    if (overran(base) || overran(other)) return { iteration, withheld: 'a call outlasted its step by more than half' };
    const why = pairWithheld(base, other, rules);
    if (why) return { iteration, withheld: why };
    const at = c.iterations.indexOf(iteration);
    return at < 0 ? { iteration, withheld: 'no calls' } : { iteration, ratio: (c.rate ?? c.throughput ?? [])[at]! };
  });
}

/** How a study's segments were measured: its planned iterations, and --budget's batches. */
export const studyDesign = (planned: number, batch?: number): RatioDesign =>
  batch ? { planned, sequential: { batch } } : { planned };

export interface SegmentSettlement {
  name: string;
  /** each ratio's evidence at the look it settled (or its last) */
  ratios: RatioEvidence[];
  unsettled: number;
}

/**
 * Every ratio of the study's segments against the rules. The family is the study's ratio count:
 * the files' comparisons, or the findings' ratios if they are more.
 */
export function settlement(
  segments: readonly { name: string; file: ResultFile }[],
  design: RatioDesign,
  rules: ClaimRules = CLAIM_RULES,
): SegmentSettlement[] {
  const compared = segments.map(({ name, file }) => ({ name, file, list: file.comparisons ?? [] }));
  const family = Math.max(
    compared.reduce((n, s) => n + s.list.length, 0),
    studyClaims(segments.map((s) => s.file)).length,
  );
  return compared.map(({ name, file, list }) => {
    const ratios = list.map((c) => ratioEvidence(comparisonPairs(file, c, rules), design, { rules, family }));
    return { name, ratios, unsettled: ratios.filter((r) => !r.settled).length };
  });
}

/** `ratios settled: 61 of 70 (after 5 iterations: 52, after 7: 9); 9 unsettled after 9 iterations` */
export function settlementText(segments: readonly SegmentSettlement[]): string {
  const all = segments.flatMap((s) => s.ratios);
  const settled = all.filter((r) => r.settled);
  const taken = new Map<number, number>();
  for (const r of settled) taken.set(r.iterations, (taken.get(r.iterations) ?? 0) + 1);
  const after = [...taken]
    .sort((a, b) => a[0] - b[0])
    .map(([n, k], i) => `after ${n}${i ? '' : ' iterations'}: ${k}`)
    .join(', ');
  const open = all.length - settled.length;
  const where = segments.filter((s) => s.unsettled).map((s) => `${s.name} ${s.unsettled}`);
  return (
    `ratios decided against the ±${Math.round((CLAIM_RULES.band - 1) * 100)}% band (a claim, or no difference): ` +
    `${settled.length} of ${all.length}${after ? ` (${after})` : ''}` +
    (open ? `; ${open} undecided (${where.join(', ')})` : '')
  );
}

/**
 * A segment's file with a later run's iterations added: its steps renumbered to follow the
 * file's, the pairing done again over all of them, its warnings kept; session starts and the
 * decomposition are the first run's.
 */
export function extendResult(base: ResultFile, extra: ResultFile, batch: number): ResultFile {
  const offset = lastIteration(base);
  const steps = [...base.steps, ...extra.steps.map((s) => ({ ...s, iteration: s.iteration + offset }))];
  return {
    ...base,
    finishedAt: extra.finishedAt,
    config: { ...base.config, extended: { iterations: Math.max(...steps.map((s) => s.iteration)), batch } },
    steps,
    warnings: [...base.warnings, ...extra.warnings.filter((w) => !base.warnings.includes(w))],
    comparisons: comparisons(steps, {
      targets: base.config.targets.map((t) => t.label),
      indexes: base.config.indexes,
    }),
  };
}
