/**
 * What a report's signs and names mean, said once under the first table that uses them: the
 * ratios' verdicts (a difference, no difference, `~`, withheld), their confidence, iterations,
 * band and family, the protocol eras in the rows' names, and the echo rows. Each line only when
 * the file has what it explains.
 */
import {
  ERA_NAMES,
  LEGACY_REVISION,
  MIN_CONFIDENCE,
  MODERN_REVISION,
  medianInterval,
  type ResultFile,
} from '@mcp-db-bench/contract';
import { FLOOR_LABEL } from '../comparisons.js';
import { int, pct } from '../format.js';
import type { Judged } from '../verdicts.js';

/** How sure an interval from `n` paired iterations is: the confidence the ratios' intervals reach. */
const confidenceOf = (n: number) => medianInterval(Array.from({ length: n }, (_, i) => i))?.confidence ?? 0;

/**
 * The ratios' signs and the rules that chose them, for a run (or a study) of `iterations`
 * iterations whose ratios `j` judged together: how many, the interval's confidence, the band.
 */
export function ratioLegend(j: Pick<Judged, 'rules' | 'family'>, iterations: number, whose = "the run's"): string {
  const { rules } = j;
  if (iterations < rules.minPairs)
    return (
      `ratios: from ${int(iterations)} iteration(s), no interval (an interval needs ${rules.minPairs}; ` +
      '--iterations 5 tells a difference from noise)'
    );
  const band = `±${Math.round((rules.band - 1) * 100)}%`;
  const sure = confidenceOf(iterations);
  return (
    `ratios: the median of ${int(iterations)} per-iteration ratios (the sides alternate in each iteration); ` +
    `${whose} ${int(j.family)} ratios judged together against a ${band} band: 1.32x [1.15–1.58]: a difference, ` +
    `its ${pct(sure)} interval outside the band and sure among the ${int(j.family)} (Holm, ${pct(rules.alpha)}); ` +
    `no difference (0.97–1.04): inside the band; ~ (1.05–1.20): undecided, crossing a band edge` +
    `${sure < MIN_CONFIDENCE ? ` or only ${pct(sure)} sure` : ''}, or ~ (1.32–1.64): outside the band but not sure ` +
    `among the ${int(j.family)}; (4 of 5 iterations): the pairs usable; ` +
    `withheld: fewer than ${rules.minPairs} usable pairs, and why`
  );
}

/** The protocol eras, echo rows and units a file's rows are named by, a line each. */
export function namesLegend(result: ResultFile): string[] {
  const labels = [...result.config.targets.map((t) => t.label), ...result.steps.map((s) => s.target)];
  const has = (era: string) => labels.some((l) => l.endsWith(` ${era}`));
  const workloads = new Set(result.steps.map((s) => s.workload));
  const echo = [
    ...(workloads.has('echo') ? ['echo: an MCP call that skips the database'] : []),
    ...(workloads.has('http-echo') ? [`http-echo: ${FLOOR_LABEL}, no MCP`] : []),
  ];
  const committing = [...new Set(result.steps.filter((s) => s.commits).map((s) => s.workload))];
  return [
    ...(has(ERA_NAMES.legacy)
      ? [`${ERA_NAMES.legacy}: MCP ${LEGACY_REVISION} as hosts speak it: initialize, then a session`]
      : []),
    ...(has(ERA_NAMES.modern)
      ? [`${ERA_NAMES.modern}: MCP ${MODERN_REVISION}, stateless: no handshake, no session`]
      : []),
    ...(echo.length ? [echo.join('; ')] : []),
    ...(committing.length ? [`${committing.join(', ')}: committed transactions/s, not calls/s`] : []),
  ];
}

/** A legend line as a sentence of a note: capitalized, a full stop after it. */
export const sentence = (line: string) => `${line[0]!.toUpperCase()}${line.slice(1)}.`;
