import { encode, newHistogram, record } from '@mcp-db-bench/agent';
import { RESULT_FILE_VERSION, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { knee, reportSections } from '../src/render/report.js';
import { toMarkdown } from '../src/render/table.js';

/** Report rendering is pure: a hand-made result file in, known numbers out. */
function stats(latenciesUs: number[]) {
  const h = newHistogram();
  for (const us of latenciesUs) record(h, us);
  return { count: latenciesUs.length, histogram: encode(h) };
}

function step(partial: Partial<StepResult> & Pick<StepResult, 'workload' | 'agents' | 'calls'>): StepResult {
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

const result = (steps: StepResult[]): ResultFile => ({
  version: RESULT_FILE_VERSION,
  tool: { name: 'mcp-db-bench', version: '0.0.0' },
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: '2026-01-01T00:01:00Z',
  environment: { node: '24', platform: 'linux', arch: 'x64', cpuModel: 'test', cpus: 2, memoryMb: 1024, loadAverage: [0, 0, 0] },
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
});

describe('the report', () => {
  it('shows goodput, attempts and errors apart, with percentiles from the histogram', () => {
    const [latency] = reportSections(result([step({ workload: 'point-read', agents: 1, calls: 300, errors: { 'tool:timeout': 100 } })]));
    expect(latency!.title).toMatch(/Latency and throughput/);
    expect(latency!.rows[0]).toEqual(['sqlite (optimized)', 'point-read', '1', '300', '0%', '400', '1.00', '1.00', '1.00', '1.00', '100']);
  });

  it('computes scaling efficiency against one agent, and the knee', () => {
    const steps = [
      step({ workload: 'point-read', agents: 1, calls: 100 }),
      step({ workload: 'point-read', agents: 2, calls: 180 }),
      step({ workload: 'point-read', agents: 4, calls: 190 }),
    ];
    const scaling = reportSections(result(steps)).find((s) => s.title.startsWith('Concurrency scaling'))!;
    expect(scaling.rows[0]).toEqual(['sqlite (optimized)', 'point-read', '1: 100 (100%) · 2: 180 (90%) · 4: 190 (48%)', '2 agents']);
    expect(knee([1, 2, 4], [100, 200, 400])).toBe('none up to 4');
  });

  it('reports the index speed-up as a ratio of the two rounds', () => {
    const steps = [
      step({ workload: 'filtered', agents: 1, calls: 50, indexes: 'baseline' }),
      step({ workload: 'filtered', agents: 1, calls: 450, indexes: 'optimized' }),
    ];
    const speedup = reportSections(result(steps)).find((s) => s.title.startsWith('Index speed-up'))!;
    expect(speedup.rows[0]?.slice(0, 6)).toEqual(['sqlite', 'filtered', '1', '50.0', '450', '9.0×']);
  });

  it('merges iterations: median goodput with its spread', () => {
    const steps = [100, 120, 80].map((calls, i) => step({ workload: 'mixed', agents: 1, calls, iteration: i + 1 }));
    const [latency] = reportSections(result(steps));
    expect(latency!.rows[0]?.slice(3, 5)).toEqual(['100', '40%']);
    expect(toMarkdown([latency!])).toMatch(/\| sqlite \(optimized\) \| mixed \| 1 \| 100 \| 40% \|/);
  });
});
