export { expectData, SimAgent, type TableKnowledge } from './agent.js';
export * from './clients/index.js';
export * from './engine/index.js';
export { startAgent } from './loop.js';
export { decode, encode, type Histogram, type LatencySummary, merge, mergeHistograms, newHistogram, record, summarize, summary } from './metrics/histogram.js';
export { Random } from './random.js';
export { type Call, WORKLOADS, type Workload } from './workloads/index.js';
