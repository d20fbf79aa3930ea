/**
 * Load stages as k6 reads them (ramping-vus, ramping-arrival-rate): each stage moves linearly
 * from the previous stage's target (0 before the first) to its own over its duration; a stage
 * of 0 ms jumps. Pure arithmetic, computed once per step, so the driver adds nothing per call
 * but a comparison.
 */
import type { LoadStage } from '@mcp-db-bench/contract';

export type Stage = LoadStage;

/** Total time of the stages, ms. */
export const stagesDuration = (stages: readonly Stage[]): number => stages.reduce((n, s) => n + s.durationMs, 0);

/** The highest target: the agents a staged step needs, or its peak rate. */
export const peakTarget = (stages: readonly Stage[]): number => stages.reduce((n, s) => Math.max(n, s.target), 0);

/** The interpolated target `atMs` after the stages began; past the end, the last target. */
export function targetAt(stages: readonly Stage[], atMs: number): number {
  let from = 0;
  let t0 = 0;
  for (const s of stages) {
    if (atMs < t0 + s.durationMs) return from + ((s.target - from) * (atMs - t0)) / s.durationMs;
    from = s.target;
    t0 += s.durationMs;
  }
  return from;
}

/** Agents active at a time: the target rounded (half up). */
export const agentsAt = (stages: readonly Stage[], atMs: number): number => Math.round(targetAt(stages, atMs));

/** From `atMs` on, `agents` are active (until the next change). */
export interface AgentChange {
  atMs: number;
  agents: number;
}

/**
 * Every moment the active agents change, the first at 0. On a ramp from a to b the rounded
 * target becomes k where the line crosses k ∓ 0.5, so the times are exact, not sampled.
 */
export function agentChanges(stages: readonly Stage[]): AgentChange[] {
  const changes: AgentChange[] = [{ atMs: 0, agents: 0 }];
  const push = (atMs: number, agents: number) => {
    // a jump (0 ms stage) lands on the same time as what came before: it replaces it
    while (changes.length > 1 && changes.at(-1)!.atMs === atMs) changes.pop();
    if (changes.length === 1 && atMs === 0) changes[0]!.agents = agents;
    else if (changes.at(-1)!.agents !== agents) changes.push({ atMs, agents });
  };
  let from = 0;
  let t0 = 0;
  for (const { durationMs: d, target: to } of stages) {
    const a = Math.round(from);
    const b = Math.round(to);
    if (d === 0) push(t0, b);
    else if (to > from) for (let k = a + 1; k <= b; k++) push(t0 + ((k - 0.5 - from) / (to - from)) * d, k);
    else if (to < from) for (let k = a - 1; k >= b; k--) push(t0 + ((from - k - 0.5) / (from - to)) * d, k);
    from = to;
    t0 += d;
  }
  return changes;
}

/** Time-weighted mean of the active agents over [fromMs, toMs). */
export function meanAgents(changes: readonly AgentChange[], fromMs: number, toMs: number): number {
  if (toMs <= fromMs) return changes.findLast((c) => c.atMs <= fromMs)?.agents ?? 0;
  let area = 0;
  for (const [i, c] of changes.entries()) {
    const start = Math.max(c.atMs, fromMs);
    const end = Math.min(changes[i + 1]?.atMs ?? Number.POSITIVE_INFINITY, toMs);
    if (end > start) area += c.agents * (end - start);
  }
  return area / (toMs - fromMs);
}

/**
 * Intended start times (ms after the stages began) when the targets are calls per second: the
 * k-th call (k = 1, 2, ...) is due when the rate's integral reaches k - 1/2, the middle of its
 * share, so each second gets the calls its area holds (10 calls/s for 1 s: 10 calls, none on
 * the boundary). On a ramp the integral is quadratic, solved in the form that stays exact when
 * the slope or the start rate is 0.
 */
export function* arrivals(stages: readonly Stage[]): Generator<number, void, undefined> {
  let from = 0;
  let t0 = 0;
  let before = 0; // calls due before this stage, fractional
  for (const { durationMs, target: to } of stages) {
    const seconds = durationMs / 1000;
    const area = ((from + to) / 2) * seconds;
    const slope = seconds > 0 ? (to - from) / seconds : 0;
    for (let mark = Math.ceil(before - 0.5) + 0.5; mark < before + area; mark++) {
      const x = mark - before;
      const t = x === 0 ? 0 : (2 * x) / (from + Math.sqrt(Math.max(0, from * from + 2 * slope * x)));
      yield t0 + t * 1000;
    }
    before += area;
    from = to;
    t0 += durationMs;
  }
}
