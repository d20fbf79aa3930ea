/**
 * What a report's signs and names mean, said once under the first table that uses them: the
 * ratios' `~`, `( )` and `[ ]`, their confidence and iterations, the protocol eras in the rows'
 * names, and the echo rows. Each line only when the file has what it explains.
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

/** How sure an interval from `n` paired iterations is: the confidence the ratios' intervals reach. */
const confidenceOf = (n: number) => medianInterval(Array.from({ length: n }, (_, i) => i))?.confidence ?? 0;

/** The ratios' signs, for a run of `iterations` iterations. */
export function ratioLegend(iterations: number): string {
  if (iterations < 2) return 'ratios: from 1 iteration, no interval (--iterations 5 tells a difference from noise)';
  const sure = confidenceOf(iterations);
  return (
    `ratios: the median of ${int(iterations)} per-iteration ratios, the sides alternating in each iteration; ` +
    `1.32x [1.10–1.58]: a difference, [ ] its ${pct(sure)} interval; ~ (0.91–1.12): no difference measured, ` +
    `the interval crosses 1${sure < MIN_CONFIDENCE ? ' or rests on fewer than 5 iterations' : ''}`
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
