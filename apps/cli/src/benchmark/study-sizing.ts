/**
 * Steps sized to the work. A whole-table grouping's calls take 1 ms to 3 s at scale 1, by the
 * table grouped (a mean near 0.1 to 0.6 s): the study's 2 s steps ended inside them and no ratio
 * came out; a peer's session start is another (Faucet's discovery takes 0.2 s on MariaDB: 5 a
 * second in a 1 s step, and at 50 agents none ended in one). Before such a segment (`sized` in
 * the design) the study times its calls at 1 agent on both index sets of every database and
 * server, and sizes each agent count's steps from the slowest's mean and longest call:
 *
 * - when a step ends, its agents' calls in flight drain: N agents on P cores run min(N, P) at
 *   once, so the last ends after about (longest + (N − 1) × residual) / min(N, P), never sooner
 *   than the longest call (the residual: what a call in flight has left, taken as halfway between
 *   the mean and the longest, since long calls are the likelier to be in flight);
 * - a step lasts twice that, so its calls end within half a step after it (the findings'
 *   "overran" rule), and long enough to finish twice `minCalls` calls (the claims rules' minimum
 *   for a rate) at the mean: 2 × minCalls × mean / min(N, P), so that a step that drew more of
 *   the long calls than average still finishes the minimum (at 1 agent a step of 12 calls at the
 *   mean finished 5 to 15 on MariaDB);
 * - never shorter than the design's duration, never longer than `STUDY.maxStepMs`: past it, the
 *   steps at that agent count overrun, and their ratios are withheld with the reason.
 */
import { CLAIM_RULES, type ResultFile } from '@mcp-db-bench/contract';
import { summarize } from '@mcp-db-bench/report';
import { type SizedGuess, STUDY, type StudySegment, type StudySettings, segmentArgs } from './study.js';

const SIZING_STEP_MS = 4000;

/** A sized segment's calls alone, ms. */
export interface CallTimes {
  meanMs: number;
  longestMs: number;
}

/** Calls alone when the quick measurement found none: the design's guess, scaled where it grows with the data. */
export function fallbackCalls({ meanMs, longestMs, atScale }: SizedGuess, scale: number): CallTimes {
  const by = atScale ? scale / atScale : 1;
  return { meanMs: Math.max(1, meanMs * by), longestMs: Math.max(1, longestMs * by) };
}

export interface Sizing extends CallTimes {
  /** measured time per step, by agent count */
  durationAt: Record<string, number>;
}

/** How long N agents' calls in flight at a step's end take to finish, ms (see above). */
export const drainMs = ({ meanMs, longestMs }: CallTimes, n: number, cpus: number): number =>
  Math.max(longestMs, (longestMs + (n - 1) * ((meanMs + longestMs) / 2)) / Math.min(n, cpus));

/** Each agent count's step duration for calls of these times alone, on `cpus` cores. */
export function stepDurations(
  calls: CallTimes,
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
    const needed = Math.max(2 * drainMs(calls, n, cpus), (2 * minCalls * calls.meanMs) / Math.min(n, cpus));
    out[n] = needed <= baseMs ? baseMs : Math.min(maxMs, Math.ceil(needed / 100) * 100);
  }
  return out;
}

/**
 * The quick measurement's `run`: the segment's workloads at 1 agent on both index sets (either
 * may be the slower: an index can make a grouping slower), 2 iterations of 4 s steps after 1 ms
 * of warm-up: about 30 calls a database: the tables grouped differ by a thousand times in size.
 */
export function sizingArgs(segment: StudySegment, s: StudySettings, out: string): string[] {
  const args = segmentArgs(segment, s, { iterations: 2, out });
  const set = (flag: string, value: string) => {
    args[args.indexOf(flag) + 1] = value;
  };
  set('--agents', '1');
  set('--duration', `${SIZING_STEP_MS}ms`);
  set('--warmup', '1ms');
  return [...args, '--check-calls', '0'];
}

/**
 * Calls alone, from the quick measurement's file: per database (and server) and workload the mean
 * of the calls that ended in their steps and the longest call seen (one still running at a step's
 * end ran at least as long as it ran past it), and of each the slowest's. Per workload: a
 * segment's handshakes (a millisecond, thousands a step) would otherwise hide its session starts.
 */
export function callTimesOf(file: ResultFile): CallTimes | undefined {
  const timed = new Map<string, { calls: number; totalMs: number; longestMs: number }>();
  for (const step of file.steps) {
    const key = `${step.target}\u0000${step.workload}`;
    const t = timed.get(key) ?? { calls: 0, totalMs: 0, longestMs: 0 };
    if (step.all.count > 0) {
      const s = summarize(step.all.histogram);
      t.calls += s.count;
      t.totalMs += (s.mean * s.count) / 1000;
      t.longestMs = Math.max(t.longestMs, s.max / 1000);
    }
    t.longestMs = Math.max(t.longestMs, step.overrun?.lastEndedAfterMs ?? 0);
    timed.set(key, t);
  }
  const measured = [...timed.values()].filter((t) => t.longestMs > 0);
  if (!measured.length) return undefined;
  return {
    meanMs: Math.max(...measured.map((t) => (t.calls ? t.totalMs / t.calls : t.longestMs))),
    longestMs: Math.max(...measured.map((t) => t.longestMs)),
  };
}
