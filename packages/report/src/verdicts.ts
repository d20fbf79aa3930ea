/**
 * The claims rules over the ratios the reports print: every comparison of the files given (their
 * one pairing, `comparisonsOf`), judged together by the contract's `comparisonVerdicts`. The
 * terminal report, Markdown, the HTML page, the findings page and a rerun's check all take a
 * ratio's verdict from here, so the same ratio reads the same everywhere.
 *
 * The family (Holm's): a run's ratios, or a study's (its files' together): each comparison's rate
 * ratio, and each index comparison's p50 ratio (the index tables print both). A page that prints
 * fewer still judges each among all of them, so a ratio reads the same on every page of the run.
 */
import {
  type ClaimRules,
  type Comparison,
  comparisonVerdicts,
  designOf,
  isWithheld,
  otherShare,
  type RatioEvidence,
  type RatioOf,
  type RatioVerdict,
  type ResultFile,
  rulesOf,
  type StepResult,
  stepBusy,
} from '@mcp-db-bench/contract';
import { comparisonsOf, sidesOf, stepsOf } from './comparisons.js';
import { int, pct } from './format.js';
import { comparable } from './served.js';

/** One ratio of the family, its evidence (the pairs it rests on) and its verdict. */
export interface JudgedRatio {
  file: ResultFile;
  comparison: Comparison;
  of: RatioOf;
  evidence: RatioEvidence;
  verdict: RatioVerdict;
}

export interface Judged {
  rules: ClaimRules;
  /** the ratios judged together */
  family: number;
  ratios: JudgedRatio[];
  /** a comparison's verdict (its rate ratio's, or its p50 ratio's): undefined when it is not in the family */
  of(c: Comparison | undefined, of?: RatioOf): RatioVerdict | undefined;
}

/**
 * A file's ratios in the family: every comparison's rate ratio, and each index comparison's p50
 * ratio; but a peer's on one database against a server on another, which no report shows.
 */
const familyOf = (file: ResultFile): { comparison: Comparison; of: RatioOf }[] => {
  const related = comparable(file);
  return comparisonsOf(file)
    .filter((c) => c.kind !== 'targets' || related(c.base.target, c.other.target))
    .flatMap((comparison) => [
      { comparison, of: 'rate' as const },
      ...(comparison.kind === 'indexes' ? [{ comparison, of: 'p50' as const }] : []),
    ]);
};

/**
 * The files' ratios judged together: a run's (one file), or a study's. `band`: the practical
 * band instead of the files' own (the first that names one), or the default.
 */
export function judge(files: readonly ResultFile[], options: { band?: number } = {}): Judged {
  const members = files.flatMap((file) => familyOf(file).map((m) => ({ ...m, file, design: designOf(file.config) })));
  const rules = rulesOf(files.find((f) => f.config.band !== undefined)?.config ?? {}, options.band);
  const verdicts = comparisonVerdicts(members, rules);
  const ratios = members.map(({ file, comparison, of }, i) => ({ file, comparison, of, ...verdicts[i]! }));
  const index = new Map<Comparison, Partial<Record<RatioOf, RatioVerdict>>>();
  for (const r of ratios) index.set(r.comparison, { ...index.get(r.comparison), [r.of]: r.verdict });
  return { rules, family: ratios.length, ratios, of: (c, of = 'rate') => (c ? index.get(c)?.[of] : undefined) };
}

const judgedRuns = new WeakMap<ResultFile, Judged>();

/** A run's ratios judged together (once per file read): what its terminal, Markdown and HTML reports show. */
export function judged(file: ResultFile): Judged {
  let found = judgedRuns.get(file);
  if (!found) {
    found = judge([file]);
    judgedRuns.set(file, found);
  }
  return found;
}

/** How a ratio is named where it is listed alone (the withheld ones, a rerun's). */
export function ratioName(c: Comparison, of: RatioOf = 'rate'): string {
  const load = `${c.workload} × ${int(c.agents)}`;
  const p50 = of === 'p50' ? ' (p50)' : '';
  switch (c.kind) {
    case 'indexes':
      return `${c.other.target} ${load} ${c.other.indexes}/${c.base.indexes}${p50}`;
    case 'targets':
      return `${c.other.target}/${c.base.target} ${load}${c.other.indexes ? ` (${c.other.indexes})` : ''}${p50}`;
    case 'agents':
      return `${c.other.target} ${load}/${int(c.base.agents ?? c.agents)}${c.other.indexes ? ` (${c.other.indexes})` : ''}${p50}`;
    default:
      return `${c.other.target} ${load} against the floor${p50}`;
  }
}

/** The share of the machine's CPU other processes took in the busy ones of `steps` (`43%–78%`); undefined: none busy. */
function busyRange(steps: readonly StepResult[], rules: ClaimRules): { text: string; steps: number } | undefined {
  const taken = steps.filter((s) => stepBusy(s, rules)).map((s) => otherShare(s.interference!));
  if (!taken.length) return undefined;
  const [low, high] = [pct(Math.min(...taken)), pct(Math.max(...taken))];
  return { text: low === high ? low : `${low}–${high}`, steps: taken.length };
}

/**
 * Why a ratio was withheld, as the rules say it, and (a busy machine) how much of its CPU other
 * processes took during the ratio's own steps.
 */
export function withheldWhy(r: JudgedRatio, rules: ClaimRules): string {
  const { base, other } = sidesOf(r.comparison);
  const busy = busyRange([...stepsOf(r.file, base), ...stepsOf(r.file, other)], rules);
  return `${r.verdict.why ?? ''}${busy ? `; ${busy.text} of the CPU went to other processes during its busy steps` : ''}`;
}

/**
 * What other processes took of the machine while the files' steps ran, when it was measured:
 * a line when some steps were busy (more than the rules allow: their pairs give no ratio) or
 * when the load moved between sides; `quiet` adds a line when neither happened.
 */
export function machineLines(files: readonly ResultFile[], j: Judged, options: { quiet?: boolean } = {}): string[] {
  const measured = files.flatMap((f) => f.steps.filter((s) => s.interference));
  if (!measured.length) return [];
  const shares = measured.map((s) => otherShare(s.interference!));
  const busy = busyRange(measured, j.rules);
  const shifted = j.ratios.filter((r) => r.of === 'rate' && r.comparison.excluded?.disturbed).length;
  const most = Math.max(...shares);
  if (busy) {
    return [
      `the machine was busy: other processes took ${busy.text} of its CPU ` +
        `during ${int(busy.steps)} of ${int(measured.length)} steps (more than ${pct(j.rules.busyShare)}: ` +
        'a pair with such a step gives no ratio)',
    ];
  }
  if (shifted)
    return [
      `other processes took up to ${pct(most)} of the machine's CPU, more beside one side of a pair than the other ` +
        `in ${int(shifted)} ratio(s): those pairs give no ratio`,
    ];
  return options.quiet ? [`the machine was quiet: other processes took at most ${pct(most)} of its CPU in a step`] : [];
}

/**
 * The ratios withheld (too few usable pairs, and why), each named: `atMost` of them, and how many
 * more (`where` the rest are listed); none named: one line that counts them and says where.
 */
export function withheldLines(j: Judged, options: { atMost?: number; where?: string } = {}): string[] {
  const { atMost = Number.POSITIVE_INFINITY, where = '--full shows them' } = options;
  const withheld = j.ratios.filter((r) => isWithheld(r.verdict));
  if (!withheld.length) return [];
  const count = `ratios withheld: ${int(withheld.length)} of ${int(j.family)}`;
  if (atMost <= 0) return [`${count} (${where}, with why)`];
  const shown = withheld.slice(0, atMost).map((r) => `${ratioName(r.comparison, r.of)}: ${withheldWhy(r, j.rules)}`);
  const more = withheld.length - shown.length;
  return [count, ...shown.map((line) => `  ${line}`), ...(more > 0 ? [`  … ${int(more)} more (${where})`] : [])];
}
