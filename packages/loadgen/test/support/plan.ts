import type { RunDescription } from '@mcp-db-bench/contract';
import type { BenchPlan } from '../../src/runner/plan.js';

/**
 * A plan as the tests write it: what a command puts in the run's description, as fields beside
 * the targets and workloads.
 */
export type TestPlan = Omit<BenchPlan, 'config'> &
  Pick<RunDescription, 'agents' | 'iterations' | 'warmupMs' | 'durationMs' | 'seed' | 'indexes'> &
  Partial<Pick<RunDescription, 'workloadAgents' | 'slices' | 'durationAt'>> & {
    rate?: number;
    stages?: RunDescription['stages'];
  };

/** The plan the runner takes: the test's fields as the run's description, as a command builds it. */
export function planOf(p: TestPlan): BenchPlan {
  const {
    agents,
    iterations,
    warmupMs,
    durationMs,
    durationAt,
    seed,
    indexes,
    workloadAgents,
    slices,
    rate,
    stages,
    ...rest
  } = p;
  return {
    ...rest,
    config: {
      targets: [],
      workloads: p.workloads.map((w) => w.name),
      agents,
      ...(workloadAgents ? { workloadAgents } : {}),
      durationMs,
      ...(durationAt ? { durationAt } : {}),
      warmupMs,
      iterations,
      protocol: 'test',
      client: 'test',
      scale: null,
      seed,
      indexes,
      rate: rate ?? null,
      ...(stages ? { stages } : {}),
      ...(slices ? { slices } : {}),
    },
  };
}
