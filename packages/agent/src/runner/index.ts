export { type Agreement, type CheckTarget, checkTargets, fingerprint, TOKENIZER, type TokenCost } from './check.js';
export { combineSlices } from './combine.js';
export { comparisons } from './comparisons.js';
export type { RunEvent, StepKey } from './events.js';
export { MergeError, mergeShards, type ShardFile } from './merge.js';
export type { BenchPlan, PlanResult, PlanTarget, RawDriver, ShardPlan, Skipped } from './plan.js';
export { type RunPlanOptions, runPlan, shardAgents } from './run-plan.js';
