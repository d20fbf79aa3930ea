import { RESULT_FILE_VERSION, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { encode, newHistogram, record } from './histogram.js';

/** Hand-made result files for the pure renderers: known latencies in, known numbers out. */

/** Operation stats of these latencies (µs). */
export function stats(latenciesUs: number[]) {
  const h = newHistogram();
  for (const us of latenciesUs) record(h, us);
  return { count: latenciesUs.length, histogram: encode(h) };
}

/** A 1-second step of `calls` calls at 1 ms each unless `all` says otherwise. */
export function step(partial: Partial<StepResult> & Pick<StepResult, 'workload' | 'agents' | 'calls'>): StepResult {
  const all = stats(Array(partial.calls).fill(1000));
  return {
    target: 'sqlite',
    indexes: 'optimized',
    iteration: 1,
    mode: 'closed',
    rate: null,
    durationMs: 1000,
    errors: {},
    operations: { get: all },
    all,
    intervals: [],
    client: { cpuPerCallUs: 200, cpuUtilization: 0.2, eventLoopDelayP99Ms: 1, eventLoopDelayMaxMs: 2 },
    openLoop: null,
    ...partial,
  };
}

export const result = (steps: StepResult[], partial: Partial<ResultFile> = {}): ResultFile => ({
  version: RESULT_FILE_VERSION,
  tool: { name: 'mcp-db-bench', version: '0.0.0' },
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: '2026-01-01T00:01:00Z',
  environment: {
    node: '24',
    platform: 'linux',
    arch: 'x64',
    cpuModel: 'test',
    cpus: 2,
    memoryMb: 1024,
    loadAverage: [0, 0, 0],
  },
  config: {
    targets: [{ label: 'sqlite', engine: 'sqlite', url: 'sqlite:x' }],
    workloads: ['point-read'],
    agents: [1, 2, 4],
    durationMs: 1000,
    warmupMs: 0,
    iterations: 1,
    protocol: 'modern',
    client: 'lean',
    scale: 0.01,
    seed: 1,
    indexes: ['baseline', 'optimized'],
    rate: null,
  },
  sessionInit: [],
  steps,
  decomposition: [],
  warnings: [],
  ...partial,
});

/** A replay's header as a run of `db.jsonl` records it, and a replayed session's operations. */
export const REPLAY = {
  trace: 'db.jsonl',
  recordedTarget: 'ours',
  values: 'keep',
  sessions: 1,
  requests: 5,
  think: 0,
} as const;

export const replayOperations = () => ({ initialize: stats([1000]), 'tools/call list_tables': stats([2000, 2000]) });
