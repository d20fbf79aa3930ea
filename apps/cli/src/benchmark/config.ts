/**
 * `run`'s flags, and the configuration they make once checked: what commander cannot check
 * (a word where no argument belongs, options that need or exclude each other) is refused here,
 * and what the flags imply (the agents of --rate-stages, no index rounds for a shard, the
 * environment's database yielding to a target) is in the new configuration, the flags untouched.
 */

import type { LoadStage, LoadStages } from '@mcp-db-bench/contract';
import type { IndexSet } from '@mcp-db-bench/dataset';
import { WORKLOADS } from '@mcp-db-bench/loadgen';
import type { Threshold } from '@mcp-db-bench/report';
import type { Command } from 'commander';
import { UsageError, unknownCommand } from '../errors.js';
import type { ProtocolChoice } from '../labels.js';
import { checkOutputPath, type Format } from '../options.js';
import { checkPinning } from '../serving/cpus.js';
import { type PeerSpec, resolvePeerCommand } from '../serving/peers/index.js';
import { checkBarrier, type ShardFlag } from '../serving/shard.js';

export interface RunFlags {
  db?: string[];
  /** --peer NAME[=COMMAND], as given; `peers` once the commands are resolved */
  peer?: Omit<PeerSpec, 'command'>[];
  target?: string[];
  targetCmd?: string[];
  /** read through `trackTargets` (pairs with the targets by position) */
  profile?: string[];
  sqlTool?: string;
  sqlArg?: string;
  service?: string;
  checkCalls: number;
  token?: string;
  scale: number;
  seed: number;
  workloads: string[];
  agents: number[];
  /** --workload-agents: a workload's own agent counts, by name */
  workloadAgents?: Record<string, number[]>;
  duration: number;
  /** --duration-at: a step's measured time by its agent count, instead of `duration` */
  durationAt?: Record<string, number>;
  warmup: number;
  iterations: number;
  indexes: IndexSet[];
  rate?: number;
  stages?: LoadStage[];
  rateStages?: LoadStage[];
  protocol: ProtocolChoice[];
  client: 'lean' | 'sdk';
  format: Format;
  out?: string;
  shard?: ShardFlag;
  startAt?: number;
  barrierFile?: string;
  runId?: string;
  html?: string;
  /** every table on stdout, not the summary */
  full?: boolean;
  /** --band: the claims rules' practical band, as a factor (1.1: ±10%) */
  band?: number;
  threshold: Threshold[];
  junit?: string;
  /** the run in the Prometheus text exposition format */
  prometheus?: string;
  serverCpus?: string;
  clientCpus?: string;
  /** a trace (`mcp-db-bench record`) whose sessions are the workload */
  replay?: string;
  /** --replay: the factor recorded think times are scaled by (1 as recorded, 0 none) */
  think: number;
  /** split each call's time by the spans our server exports to the run's own OTLP receiver */
  traceSplit?: boolean;
}

/** The flags checked: the same shape, with what they imply applied, and the stages as the plan takes them. */
export type RunConfig = Readonly<RunFlags> & { readonly loadStages?: LoadStages; readonly peers?: readonly PeerSpec[] };

/**
 * A comparison's iterations when --iterations is not given: the fewest whose interval can tell a
 * difference (the min to max of 5 paired ratios holds their median with 93.75%; 4 reach 87.5%).
 */
export const COMPARISON_ITERATIONS = 5;
/** ... and each step's time when --duration is not given either: 5 × 1 s measured per side instead of 1 × 2 s. */
export const COMPARISON_STEP_MS = 1000;

/** Agents connected to serve --rate-stages when --agents is not given. */
export const RATE_STAGES_POOL = 16;

/** Checks the flags against each other and answers the configuration they make; throws a UsageError. */
export function runConfig(flags: RunFlags, command: Command): RunConfig {
  const parent = command.parent!;
  if (command.args.length) throw new UsageError(unknownCommand(parent, command.args[0]!));
  const typed = (name: string) => command.getOptionValueSource(name) === 'cli';
  // MCP_DB_BENCH_DB names the database to use when nothing else is named: --target or --target-cmd wins over it.
  const envYields = command.getOptionValueSource('db') === 'env' && (flags.target || flags.targetCmd);
  const config: RunFlags = { ...flags, db: envYields ? undefined : flags.db };
  const given = [config.db && '--db', config.target && '--target', config.targetCmd && '--target-cmd'].filter(Boolean);
  if (given.length > 1) {
    throw new UsageError(
      `${given.join(' and ')} cannot be used together: benchmark our server on databases (--db), or another server ` +
        `(--target or --target-cmd)`,
    );
  }
  if (config.profile && config.db)
    throw new UsageError('--profile applies to --target or --target-cmd: --db runs are our own server');
  // MCP_DB_TOKEN may be exported for the user's own servers: only a typed --token without --target is a mistake
  if (config.token && !config.target && typed('token'))
    throw new UsageError('--token needs --target: it is the bearer token sent to that HTTP server');
  checkWorkloadAgents(config);
  checkDurationAt(config);
  replayConfig(config, typed);
  const staged = stagesConfig(config, typed);
  const sharded = shardConfig(staged, typed);
  checkCpus(sharded);
  checkTraceSplit(sharded);
  checkOutputs(sharded);
  const peers = peersOf(sharded);
  return { ...comparisonDefaults(sharded, typed), loadStages: loadStagesOf(sharded), ...(peers && { peers }) };
}

/** The sides a run compares: index sets on databases it owns, times targets (databases, servers) times eras. */
export function comparedSides(config: RunFlags): number {
  const owned = !config.target && !config.targetCmd;
  const profiles = owned ? Math.max(config.indexes.length, 1) : 1;
  const servers = owned
    ? Math.max(config.db?.length ?? 1, 1) * (1 + (config.peer?.length ?? 0))
    : (config.target?.length ?? 0) + (config.targetCmd?.length ?? 0);
  return profiles * servers * Math.max(config.protocol.length, 1);
}

/** A run that compares gets enough iterations for an interval unless told otherwise; a staged run keeps its stages' time. */
function comparisonDefaults(config: RunFlags, typed: (name: string) => boolean): RunFlags {
  if (typed('iterations') || config.stages || config.rateStages || comparedSides(config) < 2) return config;
  return {
    ...config,
    iterations: COMPARISON_ITERATIONS,
    duration: typed('duration') ? config.duration : COMPARISON_STEP_MS,
  };
}

/**
 * --replay takes its calls, protocol and client from the trace: the flags that would set them are
 * refused, as are the loads a recorded session has no part in (open loop, stages, shards).
 */
function replayConfig(config: RunFlags, typed: (name: string) => boolean): void {
  if (!config.replay) {
    if (typed('think'))
      throw new UsageError('--think scales the recorded think times of --replay TRACE: it needs --replay');
    return;
  }
  const refused = [
    config.profile && ['--profile', 'the trace says which tools to call'],
    typed('workloads') && ['--workloads', 'the trace is the workload'],
    typed('protocol') && ['--protocol', 'each session starts as it was recorded'],
    typed('client') && ['--client', 'replay sends the recorded requests itself'],
    typed('checkCalls') && ['--check-calls', 'replay has no answer-agreement pass'],
    config.rate && ['--rate', 'a replayed host waits its think time (closed loop)'],
    config.stages && ['--stages', 'replay runs the --agents steps'],
    config.rateStages && ['--rate-stages', 'a replayed host waits its think time (closed loop)'],
    config.shard && ['--shard', 'replay runs in one process'],
  ].filter((x): x is [string, string] => Array.isArray(x));
  if (refused.length) {
    const [flag, why] = refused[0]!;
    throw new UsageError(`--replay cannot be used with ${flag}: ${why}`);
  }
}

/**
 * --peer starts servers on the run's own databases, one each, alongside ours: refused where the
 * run has none (--target, --target-cmd), and with the runs whose servers are not started per step
 * (--shard: the database is shared; --replay: its targets are its own); each command resolved.
 */
function peersOf(config: RunFlags): PeerSpec[] | undefined {
  if (!config.peer?.length) return undefined;
  const other = [
    config.target && '--target',
    config.targetCmd && '--target-cmd',
    config.shard && '--shard',
    config.replay && '--replay',
  ].filter(Boolean);
  if (other.length)
    throw new UsageError(
      `--peer cannot be used with ${other.join(' and ')}: it starts another server beside ours on each --db database`,
    );
  return config.peer.map((p) => {
    const command = resolvePeerCommand(p.given);
    if (typeof command === 'string') throw new UsageError(`--peer ${p.launcher.name}=${p.given}: ${command}`);
    return { ...p, command };
  });
}

/** Where the run's files go, checked before the first step. */
function checkOutputs(config: RunFlags): void {
  checkOutputPath('--out', config.out);
  checkOutputPath('--html', config.html);
  checkOutputPath('--junit', config.junit);
  checkOutputPath('--prometheus', config.prometheus);
}

/** --trace-split reads the spans of the servers the run starts: another server exports elsewhere, if at all. */
function checkTraceSplit(config: RunFlags): void {
  if (!config.traceSplit) return;
  const other = [config.target && '--target', config.targetCmd && '--target-cmd', config.replay && '--replay'].filter(
    Boolean,
  );
  if (other.length) {
    throw new UsageError(
      `--trace-split cannot be used with ${other.join(' and ')}: it reads the spans of the servers the run starts ` +
        '(--db, or the default database)',
    );
  }
}

/** Pinning needs Linux and taskset; server CPUs need a server this run starts. */
function checkCpus(config: RunFlags): void {
  if (config.serverCpus) checkPinning('--server-cpus');
  if (config.clientCpus) checkPinning('--client-cpus');
  if (config.serverCpus && config.target && !config.targetCmd) {
    throw new UsageError(
      '--server-cpus pins the servers the run starts (--db, the default database, --target-cmd): a --target server ' +
        'runs elsewhere',
    );
  }
}

/**
 * A shard shares the database and the instant with the others: what would clash is refused, and
 * it has no index rounds.
 */
function shardConfig(config: RunFlags, typed: (name: string) => boolean): RunFlags {
  const timing = [
    config.startAt !== undefined && '--start-at',
    config.barrierFile && '--barrier-file',
    config.runId && '--run-id',
  ].filter(Boolean);
  if (!config.shard) {
    if (timing.length)
      throw new UsageError(`${timing.join(' and ')} ${timing.length > 1 ? 'need' : 'needs'} --shard I/N`);
    return config;
  }
  if (!config.db && !config.target && !config.targetCmd) {
    throw new UsageError(
      '--shard needs --db, --target or --target-cmd: the shards share what they measure, not a temporary database each',
    );
  }
  if (config.startAt === undefined && !config.barrierFile)
    throw new UsageError('--shard needs --start-at TIME or --barrier-file PATH: the shards must begin together');
  if (config.startAt !== undefined && config.barrierFile) {
    throw new UsageError('--start-at and --barrier-file cannot be used together: agree on a time, or on a barrier');
  }
  if (typed('indexes')) {
    throw new UsageError(
      '--indexes cannot be used with --shard: shards never re-index the database they share; set it once with ' +
        'mcp-db-bench index --indexes SET',
    );
  }
  const writes = config.workloads.filter((name) => WORKLOADS[name]!.writes);
  if (writes.length) {
    throw new UsageError(
      `--shard cannot run write workloads (${writes.join(', ')}): each shard could verify only its own writes while ` +
        `the others change the same rows`,
    );
  }
  if (config.stages || config.rateStages)
    throw new UsageError(`--shard cannot be used with ${config.stages ? '--stages' : '--rate-stages'}`);
  if (config.barrierFile) checkBarrier(config.barrierFile, config.shard);
  return { ...config, indexes: [] };
}

/** Stages set the load and its time: the flags that would too are refused, not silently ignored. */
function stagesConfig(config: RunFlags, typed: (name: string) => boolean): RunFlags {
  if (config.stages && config.rateStages) {
    throw new UsageError(
      '--stages and --rate-stages cannot be used together: ramp agents (closed loop) or calls per second (open loop)',
    );
  }
  const staged = config.stages ? '--stages' : config.rateStages ? '--rate-stages' : undefined;
  if (!staged) return config;
  const excluded = [
    staged === '--stages' && typed('agents') && '--agents',
    typed('duration') && '--duration',
    config.rate && '--rate',
  ].filter(Boolean);
  if (excluded.length) {
    const why =
      staged === '--stages'
        ? `the stages set the agents and the time${config.rate ? '; to ramp an open loop, use --rate-stages' : ''}`
        : 'the stages set the rate and the time';
    throw new UsageError(`${staged} cannot be used with ${excluded.join(' or ')}: ${why}`);
  }
  return config.rateStages && !typed('agents') ? { ...config, agents: [RATE_STAGES_POOL] } : config;
}

/** --workload-agents names workloads the run runs, on a load --agents would set. */
/** --duration-at names agent counts the run steps through, on steps of a fixed length. */
function checkDurationAt(config: RunFlags): void {
  if (!config.durationAt) return;
  const other = [
    (config.stages || config.rateStages) && 'stages (their own times)',
    config.shard && '--shard (its steps begin at agreed instants, a --duration apart)',
  ].filter(Boolean);
  if (other.length) throw new UsageError(`--duration-at cannot be used with ${other.join(' or ')}`);
  const counts = new Set([...config.agents, ...Object.values(config.workloadAgents ?? {}).flat()]);
  const absent = Object.keys(config.durationAt).filter((n) => !counts.has(Number(n)));
  if (absent.length)
    throw new UsageError(
      `--duration-at names ${absent.join(', ')} agents, not among the run's agent counts (${[...counts].join(', ')})`,
    );
}

function checkWorkloadAgents(config: RunFlags): void {
  const named = Object.keys(config.workloadAgents ?? {});
  if (named.length === 0) return;
  const absent = named.filter((name) => !config.workloads.includes(name));
  if (absent.length) {
    throw new UsageError(
      `--workload-agents names ${absent.join(', ')}, not among the run's workloads (${config.workloads.join(', ')}): ` +
        `add it to --workloads`,
    );
  }
  const other = [config.stages && '--stages', config.replay && '--replay'].filter(Boolean);
  if (other.length)
    throw new UsageError(`--workload-agents cannot be used with ${other.join(' or ')}: they set every step's agents`);
}

/** The stages asked for, as the plan and the result file take them. */
function loadStagesOf(config: RunFlags): LoadStages | undefined {
  if (config.stages) return { kind: 'agents', stages: config.stages };
  if (config.rateStages) return { kind: 'rate', stages: config.rateStages };
  return undefined;
}
