export { combineSlices } from './combine.js';
export type { RunEvent, StepKey } from './events.js';
export type { BenchPlan, PlanResult, PlanTarget, RawDriver, ShardPlan, Skipped } from './plan.js';
export { type RunPlanOptions, runPlan } from './run-plan.js';
export { MergeError, mergeShards, type ShardFile } from './merge.js';
export { shardAgents } from './run-plan.js';
export { type Agreement, type CheckTarget, checkTargets, fingerprint, type TokenCost, TOKENIZER } from './check.js';
