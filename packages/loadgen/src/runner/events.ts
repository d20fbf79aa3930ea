/**
 * What the runner reports as it goes. Progress lines, samplers and paired tables subscribe to
 * these instead of running loops or timers of their own. A listener that throws ends the plan.
 */
import type {
  Agreement,
  Comparison,
  DecompositionResult,
  ResultFile,
  RunDescription,
  StepResult,
  TokenCost,
} from '@mcp-db-bench/contract';
import type { PlanResult, Skipped } from './plan.js';

/** Which measurement a step is. */
export type StepKey = Pick<StepResult, 'target' | 'indexes' | 'workload' | 'agents' | 'iteration'>;

export type RunEvent =
  /** the run begins: its targets, and its description as the result file will carry it */
  | { type: 'plan-start'; targets: string[]; startedAt: string; config: RunDescription }
  /** one turn of a step on one target begins (slice 0 of 1 when steps are not sliced) */
  | {
      type: 'step-start';
      step: StepKey;
      slice: number;
      slices: number /** this turn's measured time */;
      durationMs?: number;
    }
  /**
   * the measured window opened (atMs 0) or another second of it passed; calls and errors so far
   * in this turn; staged steps also say the agents active now, or the intended calls per second
   */
  | {
      type: 'interval';
      step: StepKey;
      slice: number;
      atMs: number;
      calls: number;
      errors: number;
      agents?: number;
      rate?: number;
    }
  /** a step's measurement on one target, its slices combined, verified when it wrote */
  | { type: 'step-end'; step: StepResult }
  | ({ type: 'skipped' } & Skipped)
  /** `later`: measured again in the last pass, beside the first pass's measurement of the same target and profile */
  | { type: 'session-init'; iteration: number; result: ResultFile['sessionInit'][number]; later?: boolean }
  | { type: 'decomposition'; iteration: number; target: string; results: DecompositionResult[] }
  /** a warning the result file keeps: a busy load generator, a late shard, a failed check */
  | { type: 'warning'; line: string }
  /** the answer-agreement and token-cost pass: what each target's answers cost, and where they differ */
  | { type: 'check'; tokens: TokenCost[]; agreement: Agreement[] }
  /** the compared sides' ratios, paired by iteration, once every step has run */
  | { type: 'comparisons'; comparisons: Comparison[] }
  /** something worth a line: indexes set, a write step verified */
  | { type: 'log'; line: string }
  /** what runs now, between measurements (a live line on a terminal) */
  | { type: 'activity'; line: string }
  | { type: 'plan-end'; result: PlanResult };
