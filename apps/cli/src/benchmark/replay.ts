/**
 * `run --replay TRACE`: recorded sessions as the workload, against the targets of
 * `replay-targets.ts`. One `replay` step per agent count (and index round on our databases).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { ResultFile, RunDescription } from '@mcp-db-bench/contract';
import {
  PlanResultBuilder,
  type PlanTarget,
  parseTrace,
  ReplayError,
  runPlan,
  sessionEra,
  type Trace,
  type Workload,
} from '@mcp-db-bench/loadgen';
import { UsageError } from '../errors.js';
import { logLine, progress } from '../render/progress.js';
import { resultOf } from '../results.js';
import { onInterrupt } from '../serving/interrupt.js';
import { withServing } from '../serving/lifecycle.js';
import type { PeerTarget } from '../serving/targets.js';
import type { RunConfig } from './config.js';
import { replayTargets } from './replay-targets.js';

/** The workload name replay steps are filed under. */
export const REPLAY_WORKLOAD = 'replay';

/** The trace file, read and checked: a usage error names the file and the line. */
export function readTrace(file: string): Trace {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--replay ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  try {
    return parseTrace(text, `--replay ${file}`);
  } catch (error) {
    if (error instanceof ReplayError) throw new UsageError(error.message);
    throw error;
  }
}

export async function measureReplay(
  config: RunConfig & { replay: string },
  peers: readonly PeerTarget[],
  keep: (partial: ResultFile) => void,
): Promise<ResultFile> {
  const trace = readTrace(config.replay);
  announce(trace, config);
  return withServing({ db: config.db, temporary: !config.target && !config.targetCmd }, async (serving) => {
    // the agents share out the sessions by the step's agent count, which the runner says in its step-start event
    let currentAgents = config.agents[0]!;
    const { targets, plan } = await replayTargets(serving, peers, {
      trace,
      config,
      bothEras: new Set(trace.sessions.map(sessionEra)).size === 2,
      agents: () => currentAgents,
    });
    const description = replayDescription(config, trace, targets, serving.databases.length > 0);
    return runReplay(config, plan, description, keep, (agents) => {
      currentAgents = agents;
    });
  });
}

/** What is about to be replayed, and what of the trace is not. */
function announce(trace: Trace, config: RunConfig & { replay: string }): void {
  logLine(
    `replaying ${trace.sessions.length} session(s), ${requestCount(trace)} requests, recorded against ` +
      `${trace.header.target} (values ${trace.header.values}), think time × ${config.think}`,
  );
  if (trace.streams > 0)
    logLine(`${trace.streams} GET stream(s) the recorded hosts opened are not replayed (counted in the result file)`);
}

const requestCount = (trace: Trace) => trace.sessions.reduce((n, s) => n + s.requests.length, 0);

/** The plan run, with progress shown and the finished steps kept on an interrupt; `onStep` hears each step's agents. */
async function runReplay(
  config: RunConfig & { replay: string },
  plan: PlanTarget[],
  description: RunDescription,
  keep: (partial: ResultFile) => void,
  onStep: (agents: number) => void,
): Promise<ResultFile> {
  const built = new PlanResultBuilder(description);
  const show = progress();
  const keepPartial = onInterrupt(() => keep({ ...resultOf(built.result()), partial: true }));
  const measured = await runPlan(
    { config: description, targets: plan, workloads: [replayWorkload(config.replay)] },
    {
      results: built,
      on: (event) => {
        if (event.type === 'step-start') onStep(event.step.agents);
        show(event);
      },
    },
  );
  keepPartial();
  return resultOf(measured);
}

/** The workload the replay steps are filed under; its agents drive themselves. */
function replayWorkload(file: string): Workload {
  return {
    name: REPLAY_WORKLOAD,
    description: `the sessions of ${basename(file)}`,
    database: true,
    requires: [],
    next() {
      throw new Error('a replay step is driven by its agents');
    },
  };
}

/**
 * The run as its result file says it, the runner taking what it runs from it: our databases'
 * scale and index rounds only when there are some.
 */
function replayDescription(
  config: RunConfig & { replay: string },
  trace: Trace,
  targets: RunDescription['targets'],
  ownDatabases: boolean,
): RunDescription {
  return {
    targets,
    workloads: [REPLAY_WORKLOAD],
    agents: config.agents,
    durationMs: config.duration,
    warmupMs: config.warmup,
    iterations: config.iterations,
    protocol: 'as recorded',
    client: 'replay',
    scale: ownDatabases ? config.scale : null,
    seed: config.seed,
    indexes: ownDatabases ? config.indexes : [],
    rate: null,
    stages: null,
    replay: {
      trace: basename(config.replay),
      recordedTarget: trace.header.target,
      values: trace.header.values,
      sessions: trace.sessions.length,
      requests: requestCount(trace),
      think: config.think,
      ...(trace.streams > 0 ? { streams: trace.streams } : {}),
    },
    ...(config.serverCpus || config.clientCpus
      ? { cpus: { server: config.serverCpus ?? null, client: config.clientCpus ?? null } }
      : {}),
    ...(config.band ? { band: config.band } : {}),
  };
}
