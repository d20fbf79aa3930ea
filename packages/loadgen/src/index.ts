export { Random } from '@mcp-db-bench/contract';
export { expectData, SimAgent, type TableKnowledge } from './agent.js';
export * from './clients/index.js';
export * from './drive/index.js';
export { startAgent } from './loop.js';
export * from './peers/index.js';
export * from './replay/index.js';
export * from './runner/index.js';
export {
  type ChosenCall,
  DEFAULT_WORKLOADS,
  type Plan,
  type PlanContext,
  WORKLOADS,
  type Workload,
} from './workloads/index.js';
export {
  type Account,
  type Draft,
  newMarker,
  openLedger,
  type Transfer,
  WriteLedger,
  type WriteOp,
} from './writes/ledger.js';
export { fromCents, readAll, toCents } from './writes/read-back.js';
export { compareWrites, verifyWrites, type WriteVerification } from './writes/verify.js';
