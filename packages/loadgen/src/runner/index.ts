export { type Agreement, type CheckTarget, checkTargets, fingerprint, TOKENIZER, type TokenCost } from './check.js';
export type { RunEvent, StepKey } from './events.js';
export type { BenchPlan, PlanResult, PlanTarget, RawDriver, ShardPlan, Skipped } from './plan.js';
export { PlanResultBuilder } from './result.js';
export { type RunPlanOptions, runPlan, shardAgents } from './run-plan.js';
export { indexRounds, type PlannedSteps, plannedSteps } from './steps.js';
