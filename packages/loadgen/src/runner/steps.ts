import { peakTarget } from '../drive/stages.js';
import type { Workload } from '../workloads/workload.js';
import type { BenchPlan, PlanTarget } from './plan.js';

type Described = Pick<BenchPlan['config'], 'indexes' | 'stages' | 'workloadAgents' | 'agents' | 'iterations'>;

/**
 * The plan's index rounds: its index sets when a target can re-index (a database we own) and a
 * workload reads the database, else one round under whatever indexes are there (null): the
 * handshake alone has nothing to re-index for.
 */
export const indexRounds = (plan: {
  config: Pick<Described, 'indexes'>;
  targets: BenchPlan['targets'];
  workloads: readonly Pick<Workload, 'database'>[];
}): readonly (string | null)[] =>
  plan.config.indexes.length > 0 && plan.targets.some((t) => t.reindex) && plan.workloads.some((w) => w.database)
    ? plan.config.indexes
    : [null];

/** A workload's agent counts to step through: the stages' peak when they count agents, else its own list or the plan's. */
export const stepAgents = (
  { config }: { config: Pick<Described, 'stages' | 'workloadAgents' | 'agents'> },
  workload: Pick<Workload, 'name'>,
): readonly number[] =>
  config.stages?.kind === 'agents'
    ? [peakTarget(config.stages.stages)]
    : (config.workloadAgents?.[workload.name] ?? config.agents);

/** The steps a plan measures, counted by the runner's own rules (runPlan), for progress. */
export interface PlannedSteps {
  /** every target's steps (a workload it turns out not to serve is still counted: see `of`) */
  steps: number;
  /** one target's steps of one workload: what a `skipped` event for them takes off */
  of(target: string, workload: string): number;
}

/**
 * Counts `plan`'s steps as runPlan runs them: for each target and workload, the index rounds
 * (every round for a workload on a database the target re-indexes, else only the first; a
 * `--target` server is never re-indexed), times its agent counts, times the iterations. A target
 * that `servesOnly` what it has runs only the workloads `servedOnly` names.
 */
export function plannedSteps(
  plan: { config: Described } & Pick<BenchPlan, 'targets' | 'workloads'>,
  servedOnly: (workload: string) => boolean = () => false,
): PlannedSteps {
  const rounds = indexRounds(plan).length;
  const count = (target: PlanTarget, workload: Workload): number => {
    if (target.servesOnly && !servedOnly(workload.name)) return 0;
    const times = target.reindex && workload.database ? rounds : 1;
    return times * stepAgents(plan, workload).length * plan.config.iterations;
  };
  let steps = 0;
  for (const target of plan.targets) for (const workload of plan.workloads) steps += count(target, workload);
  return {
    steps,
    of: (label, name) => {
      const target = plan.targets.find((t) => t.label === label);
      const workload = plan.workloads.find((w) => w.name === name);
      return target && workload ? count(target, workload) : 0;
    },
  };
}
