/**
 * Steps sized to the work. A whole-table grouping takes 0.4 to 8 s at scale 1, longer than the
 * study's 2 s steps: every call outlasted its step and no ratio came out. Before such a segment
 * (`sized: true` in the design) the study measures one call of it at 1 agent on the slower side
 * (baseline indexes) on every database, and sizes each agent count's steps from the slowest:
 *
 * - N agents on P cores run about min(N, P) calls at once, so a call takes L × max(1, N / P)
 *   (L: one call alone), and a step must last twice that, so that a call started in it ends
 *   within half a step after it (the findings' "overran" rule);
 * - and long enough to finish `minCalls` calls (the claims rules' minimum for a rate):
 *   minCalls × L / min(N, P);
 * - never shorter than the design's duration, never longer than `STUDY.maxStepMs`: past it, the
 *   steps at that agent count overrun, and their ratios are withheld with the reason.
 */
import { CLAIM_RULES, type ResultFile } from '@mcp-db-bench/contract';
import { summarize } from '@mcp-db-bench/report';
import { STUDY, type StudySegment, type StudySettings, segmentArgs } from './study.js';

const SIZING_STEP_MS = 100;

/** One call alone, ms, when the quick measurement found none: the slowest whole-table grouping at scale 1, scaled. */
export const fallbackCallMs = (scale: number) => Math.max(1, 8000 * scale);

export interface Sizing {
  /** one call alone on the slowest database, ms */
  callMs: number;
  /** measured time per step, by agent count */
  durationAt: Record<string, number>;
}

/** Each agent count's step duration for calls of `callMs` alone, on `cpus` cores. */
export function stepDurations(
  callMs: number,
  agents: readonly number[],
  {
    cpus,
    baseMs,
    maxMs = STUDY.maxStepMs,
    minCalls = CLAIM_RULES.minCalls,
  }: { cpus: number; baseMs: number; maxMs?: number; minCalls?: number },
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of agents) {
    const perCall = callMs * Math.max(1, n / cpus);
    const needed = Math.max(2 * perCall, (minCalls * callMs) / Math.min(n, cpus));
    out[n] = needed <= baseMs ? baseMs : Math.min(maxMs, Math.ceil(needed / 100) * 100);
  }
  return out;
}

/**
 * The quick measurement's `run`: the segment's workloads at 1 agent on baseline indexes, 2
 * iterations of 100 ms steps after 1 ms of warm-up: calls of milliseconds fill the steps, a call
 * of seconds starts in the warm-up and its length is read from how long it ran past the step.
 */
export function sizingArgs(segment: StudySegment, s: StudySettings, out: string): string[] {
  const args = segmentArgs(segment, s, { iterations: 2, out });
  const set = (flag: string, value: string) => {
    args[args.indexOf(flag) + 1] = value;
  };
  set('--agents', '1');
  set('--indexes', STUDY.indexes[0]);
  set('--duration', `${SIZING_STEP_MS}ms`);
  set('--warmup', '1ms');
  return [...args, '--check-calls', '0'];
}

/**
 * One call alone, ms, from the quick measurement's file: per database the faster of its two
 * iterations (the first may read from disk; the study's steps are warmed up), the slowest database.
 * A step's calls' p50; a step with none measured held one call begun at its warm-up's start and
 * ended past the step: its length is the warm-up, the step and the run past its end.
 */
export function callMsOf(file: ResultFile): number | undefined {
  const byTarget = new Map<string, number>();
  for (const step of file.steps) {
    const callMs =
      step.all.count > 0
        ? summarize(step.all.histogram).p50 / 1000
        : step.overrun && file.config.warmupMs + step.durationMs + step.overrun.lastEndedAfterMs;
    if (!callMs) continue;
    byTarget.set(step.target, Math.min(byTarget.get(step.target) ?? Number.POSITIVE_INFINITY, callMs));
  }
  return byTarget.size ? Math.max(...byTarget.values()) : undefined;
}
