/**
 * More iterations instead of false claims (`study --budget`): which of a study's ratios are
 * settled (decided against the practical band: a claim, or no difference) and which segments
 * still hold undecided ones; and a segment's extra iterations merged into its file. The ratios
 * are the ones the findings judge (report's `judge`: each segment's one pairing, `comparisonsOf`,
 * the study's ratios one family, each file's design from its own config), so what settles here is
 * what the findings page says.
 */
import { isWithheld, type RatioEvidence, type ResultFile } from '@mcp-db-bench/contract';
import { comparisons, int, judge } from '@mcp-db-bench/report';

export const lastIteration = (file: ResultFile) =>
  Math.max(file.config.iterations, ...file.steps.map((s) => s.iteration));

export interface SegmentSettlement {
  name: string;
  /** each ratio's evidence at the look it settled (or its last) */
  ratios: RatioEvidence[];
  unsettled: number;
  /** of the unsettled, those withheld (too few usable pairs: a busy machine, steps that overran) */
  withheld: number;
}

/** Every ratio of the study's segments against the claims rules, as the findings judge them (`band`: study --band). */
export function settlement(
  segments: readonly { name: string; file: ResultFile }[],
  options: { band?: number } = {},
): SegmentSettlement[] {
  const j = judge(
    segments.map((s) => s.file),
    options,
  );
  return segments.map(({ name, file }) => {
    const mine = j.ratios.filter((r) => r.file === file);
    const ratios = mine.map((r) => r.evidence);
    const withheld = mine.filter((r) => !r.evidence.settled && isWithheld(r.verdict)).length;
    return { name, ratios, unsettled: ratios.filter((r) => !r.settled).length, withheld };
  });
}

/**
 * `ratios decided against the ±10% band (...): 61 of 70 (after 5 iterations: 52, after 7: 9); 7
 * undecided, 2 withheld for too few usable pairs (analytical-table 6, transfer 3)`
 */
export function settlementText(segments: readonly SegmentSettlement[], band: number): string {
  const all = segments.flatMap((s) => s.ratios);
  const settled = all.filter((r) => r.settled);
  const taken = new Map<number, number>();
  for (const r of settled) taken.set(r.iterations, (taken.get(r.iterations) ?? 0) + 1);
  const after = [...taken]
    .sort((a, b) => a[0] - b[0])
    .map(([n, k], i) => `after ${int(n)}${i ? '' : ' iterations'}: ${int(k)}`)
    .join(', ');
  const open = all.length - settled.length;
  const withheld = segments.reduce((n, s) => n + s.withheld, 0);
  const undecided = [
    ...(open > withheld ? [`${int(open - withheld)} undecided`] : []),
    ...(withheld ? [`${int(withheld)} withheld for too few usable pairs`] : []),
  ].join(', ');
  const where = segments.filter((s) => s.unsettled).map((s) => `${s.name} ${int(s.unsettled)}`);
  return (
    `ratios decided against the ±${Math.round((band - 1) * 100)}% band (a claim, or no difference): ` +
    `${int(settled.length)} of ${int(all.length)}${after ? ` (${after})` : ''}` +
    (open ? `; ${undecided} (${where.join(', ')})` : '')
  );
}

/**
 * A segment's file as a --budget study judges it: a sequential design, its iterations added in
 * batches of `batch` (none yet), so every look past its planned iterations is stricter, and the
 * findings read the same design from the file alone.
 */
export const sequential = (file: ResultFile, batch: number): ResultFile =>
  file.config.extended
    ? file
    : { ...file, config: { ...file.config, extended: { iterations: lastIteration(file), batch } } };

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
