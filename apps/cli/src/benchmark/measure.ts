/**
 * What `run` measures: our server on each database (started through the shared serving
 * lifecycle), the other servers named by --target and --target-cmd, and the echo floor when a
 * workload needs no more; one plan over them all, and its result file.
 */

import { type DatabaseFacts, type ResultFile, type RunDescription, TOOL_NAMES } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import {
  cpuUnder,
  createClient,
  PEERS,
  PeerClient,
  PlanResultBuilder,
  type PlanTarget,
  peakTarget,
  plannedSteps,
  runPlan,
  stagesDuration,
  type Target,
  WORKLOADS,
} from '@mcp-db-bench/loadgen';
import { FLOOR_LABEL } from '@mcp-db-bench/report';
import { request } from 'undici';
import { networkReason, UsageError } from '../errors.js';
import { eraLabel, type ProtocolChoice } from '../labels.js';
import { logLine, progress } from '../render/progress.js';
import { resultOf } from '../results.js';
import { pinnedCommand } from '../serving/cpus.js';
import type { Database } from '../serving/database.js';
import { indexesAfter, readFacts, recordedScale } from '../serving/facts.js';
import { onInterrupt } from '../serving/interrupt.js';
import { type Serving, withServing } from '../serving/lifecycle.js';
import { announceStart, barrier, requireDataset, runIdOf } from '../serving/shard.js';
import { type SpanReceiver, startSpanReceiver } from '../serving/span-receiver.js';
import type { PeerTarget } from '../serving/targets.js';
import type { RunConfig } from './config.js';
import { runMachine } from './machine.js';
import { traceSplitOf } from './trace-split.js';

type TargetEntry = ResultFile['config']['targets'][number];

/** `keep`: what to do with the steps finished when a signal interrupts the run (its result, marked partial). */
export async function measure(
  config: RunConfig,
  peers: readonly PeerTarget[],
  keep: (partial: ResultFile) => void,
): Promise<ResultFile> {
  for (const url of config.target ?? []) await checkReachable(url);
  const temporary = !config.target && !config.targetCmd;
  try {
    return await withServing({ db: config.db, temporary }, async (serving) => {
      /** --trace-split: where our servers export their spans */
      let receiver: SpanReceiver | undefined;
      if (config.traceSplit) {
        receiver = await startSpanReceiver();
        serving.onCleanup(receiver.close);
      }
      const targets = await planTargets(config, peers, serving, receiver);
      const machine = runMachine(serving.databases, config.target);
      // the run as its result file says it: the runner takes what it runs from it
      const description = runDescription(config, serving, targets);
      const { shard } = config;
      const start = async () => {
        const at = config.barrierFile ? await barrier(config.barrierFile, shard!, logLine) : config.startAt!;
        describeShard(description, config, at);
        return announceStart(at, shard!, logLine);
      };
      // Steps finished so far: an interrupted run keeps them, marked partial, in every file asked for.
      const built = new PlanResultBuilder(description);
      const workloads = config.workloads.map((name) => WORKLOADS[name]!);
      // The steps the runner will measure, counted by its rules (a --target server is never
      // re-indexed: one round); a skip takes its steps off; the bare echo floor serves echo alone.
      const planned = plannedSteps(
        { config: description, targets: targets.plan, workloads },
        (workload) => workload === 'echo',
      );
      const show = progress(undefined, undefined, undefined, planned);
      const keepPartial = onInterrupt(() =>
        keep({ ...resultOf(built.result()), machine: machine.record(), partial: true }),
      );
      const measured = await runPlan(
        {
          config: description,
          targets: targets.plan,
          workloads,
          // A fresh server process compiles its hot paths during the first seconds; without this the
          // first round (baseline) would pay for that and the index speed-up would be overstated.
          warmUp: { workload: WORKLOADS.mixed!, agents: 2, durationMs: Math.max(1000, config.warmup * 2) },
          sessionInit: true,
          decomposition: true,
          shard: shard && { ...shard, start },
          check: config.checkCalls > 0 ? { calls: config.checkCalls } : undefined,
          machine: machine.window,
        },
        { on: show, results: built },
      );
      keepPartial();
      if (receiver) {
        // the last step's spans leave the servers within the batch delay (100 ms): wait until they stop coming
        await receiver.settle(1000, 15_000);
        const calls = receiver.calls();
        for (const step of measured.steps) {
          const split = targets.traced.has(step.target) ? traceSplitOf(step, calls) : undefined;
          if (split) step.traceSplit = split;
        }
      }
      return { ...resultOf(measured), machine: machine.record() };
    });
  } catch (error) {
    // the target went away during the run: say which server it was
    const why = networkReason(error);
    if (config.target?.length === 1 && why !== (error as Error).message)
      throw new Error(`cannot reach the target ${redactUrl(config.target[0]!)}: ${why}`);
    throw error;
  }
}

/** What a run measures, as the plan takes it and as the result file names it. */
interface RunTargets {
  entries: TargetEntry[];
  plan: PlanTarget[];
  /** --trace-split: the labels of our servers' steps, whose spans the receiver gets */
  traced: Set<string>;
  /** --shard: the index set found on each database, by engine */
  found: { name: string; indexes: string }[];
}

/** How a plan target is added, in every era asked for (host era first): one target each, labelled with its era. */
type EachEra = (
  name: string,
  entry: Omit<TargetEntry, 'label'>,
  target: Target,
  owned?: Pick<PlanTarget, 'reindex' | 'driver' | 'serverCpuUs'>,
  peer?: Pick<PeerTarget, 'profile' | 'options'>,
) => void;

/** Our server on each database (in every era asked for), the peers, and the echo floor when a workload needs no more. */
async function planTargets(
  config: RunConfig,
  peers: readonly PeerTarget[],
  serving: Serving,
  receiver: SpanReceiver | undefined,
): Promise<RunTargets> {
  const workloads = config.workloads.map((name) => WORKLOADS[name]!);
  const out: RunTargets = { entries: [], plan: [], traced: new Set(), found: [] };
  const { entries: targets, plan } = out;
  /** --server-cpus: the HTTP servers started here, whose processes a stdio target's count leaves out */
  const servers: number[] = [];
  const clientOptions = (protocol: ProtocolChoice) => ({
    client: config.client,
    protocol,
    token: config.token,
    timeoutMs: 30_000,
  });
  const eachEra: EachEra = (name, entry, target, owned, peer = { profile: PEERS.ours!, options: {} }) => {
    for (const protocol of config.protocol) {
      const label = uniqueLabel(eraLabel(name, protocol), targets);
      targets.push({ label, ...entry });
      const client = () => new PeerClient(peer.profile, createClient(target, clientOptions(protocol)), peer.options);
      plan.push({ label, client, cannot: peer.profile.cannot, ...owned });
    }
  };
  // The server is read-only unless a workload that writes was asked for.
  const writes = workloads.some((w) => w.writes);
  for (const db of serving.databases)
    await serveDatabase(config, db, { serving, receiver, writes, out, servers, eachEra });
  // a target named by its profile; `target` when none was given (as before profiles)
  for (const peer of peers) {
    const entry = { engine: peer.options.engine ?? null, url: peer.url, profile: peer.profile.name };
    const target = pinnedTarget(peer.target, config.serverCpus);
    eachEra(
      peer.given ? peer.profile.name : 'target',
      entry,
      target,
      stdioCpu(peer.target, config.serverCpus, servers),
      peer,
    );
  }
  // The bare echo floor beside MCP echo: it answers echo alone, so it runs what needs no more.
  if (workloads.some((w) => w.requires.every((tool) => tool === TOOL_NAMES.echo))) {
    const floor = await serving.floor(config.serverCpus);
    servers.push(floor.pid);
    plan.push({
      label: FLOOR_LABEL,
      agent: floor.agent,
      tools: [TOOL_NAMES.echo],
      servesOnly: true,
      fileAs: 'http-echo',
      // echo and the floor take 4 turns each within every step: a drift of the machine lands on both
      turns: 4,
      ...cpuOf(config, floor.pid),
    });
  }
  return out;
}

/** --server-cpus: a server's CPU read around each measured window. */
const cpuOf = (config: RunConfig, pid: number) => (config.serverCpus ? { serverCpuUs: () => cpuUnder(pid) } : {});

interface DatabaseServing {
  serving: Serving;
  receiver: SpanReceiver | undefined;
  writes: boolean;
  out: RunTargets;
  servers: number[];
  eachEra: EachEra;
}

/**
 * One database: seeded (or, for a shard, found), its facts read, our server on it and each
 * --peer started beside ours; they share its re-indexing and its driver, so every server on it
 * runs every index round and gets its decomposition.
 */
async function serveDatabase(config: RunConfig, db: Database, s: DatabaseServing): Promise<void> {
  const { engine } = db;
  const first = config.indexes[0] ?? 'optimized';
  if (config.shard && engine.oneProcess)
    throw new UsageError(`--shard cannot share ${engine.title}: it can be open in one process at a time`);
  if (config.peers?.length && engine.oneProcess)
    throw new UsageError(
      `--peer cannot share ${engine.title} with our server: it can be open in one process at a time`,
    );
  if (config.shard) s.out.found.push({ name: engine.name, indexes: await requireDataset(db) });
  // a shard's database is shared: never seeded or re-indexed, only read through the driver for the decomposition
  const prepared: Pick<PlanTarget, 'reindex' | 'driver'> = config.shard
    ? await s.serving.driverOnly(db)
    : await s.serving.prepare(db, { scale: config.scale, seed: config.seed, indexes: first });
  // what the database is and holds, read before our server opens it (an embedded one may allow one process)
  const { facts: database, name } = await readFacts(db, Boolean(prepared.reindex));
  const owned = { ...prepared, ...recordIndexes(db, database, prepared.reindex) };
  const server = await s.serving.server(db, {
    args: s.writes ? ['--allow-writes'] : [],
    cpus: config.serverCpus,
    otel: s.receiver?.env,
  });
  s.servers.push(server.child.pid!);
  logLine(`${name}: our MCP server at ${server.endpoint}`);
  const entry = { engine: name, url: redactUrl(db.url), database };
  const before = s.out.entries.length;
  s.eachEra(name, entry, { kind: 'http', url: server.endpoint }, { ...owned, ...cpuOf(config, server.child.pid!) });
  for (const t of s.out.entries.slice(before)) s.out.traced.add(t.label);
  for (const spec of config.peers ?? []) {
    const peerName = spec.launcher.name;
    const peer = await s.serving.peer(db, spec, config.serverCpus);
    s.servers.push(peer.pid);
    logLine(`${name}: ${peerName} at ${peer.endpoint} (${spec.given})`);
    s.eachEra(
      `${peerName} ${name}`,
      { ...entry, profile: peerName, peer: { name: peerName, command: spec.given } },
      { kind: 'http', url: peer.endpoint },
      { ...owned, ...cpuOf(config, peer.pid) },
      { profile: PEERS[peerName]!, options: peer.options },
    );
  }
}

/**
 * The run as its result file says it, built once from the flags and what the targets found: the
 * runner takes what it runs from it, and the file (a partial one too) carries it as it is.
 */
function runDescription(config: RunConfig, serving: Serving, { entries: targets, found }: RunTargets): RunDescription {
  const { shard } = config;
  const stages = config.loadStages;
  const databases = serving.databases.length;
  const file: RunDescription = {
    targets,
    workloads: config.workloads,
    agents: stages?.kind === 'agents' ? [peakTarget(stages.stages)] : config.agents,
    ...(config.workloadAgents ? { workloadAgents: config.workloadAgents } : {}),
    durationMs: stages ? stagesDuration(stages.stages) : config.duration,
    ...(config.durationAt ? { durationAt: config.durationAt } : {}),
    warmupMs: config.warmup,
    iterations: config.iterations,
    protocol: config.protocol.join(','),
    client: config.client,
    // the scale the databases' markers name, whatever --scale said (a reused database keeps its own)
    scale: databases ? recordedScale(targets.filter((t) => t.database).map((t) => t.database)) : null,
    seed: config.seed,
    indexes: shard ? foundIndexes(found) : databases ? config.indexes : [],
    rate: config.rate ?? null,
    stages: stages ?? null,
    ...(config.serverCpus || config.clientCpus
      ? { cpus: { server: config.serverCpus ?? null, client: config.clientCpus ?? null } }
      : {}),
    ...(config.band ? { band: config.band } : {}),
  };
  // until the agreed start is known (an interrupt may come first): now
  if (shard) describeShard(file, config, Date.now());
  return file;
}

/** --shard: the description's part of the run, its run id a hash of the rest and of the agreed start. */
function describeShard(description: RunDescription, config: RunConfig, startAt: number): void {
  const at = new Date(startAt).toISOString();
  description.shard = { ...config.shard!, runId: config.runId ?? runIdOf(description, at), startAt: at };
}

/** Fails early, naming the target, when nothing answers HTTP at its address. Any HTTP answer will do. */
async function checkReachable(url: string): Promise<void> {
  try {
    const res = await request(url, {
      method: 'GET',
      headers: { accept: 'text/event-stream, application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    // an SSE answer (DBHub's GET) never ends, and a body destroyed unread emits an error no one
    // listens to (a crash, seen on 401s): drop it, with a listener for the abort that raises
    res.body.on('error', () => {});
    res.body.destroy();
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? 'no answer within 10 s' : networkReason(error);
    throw new Error(`cannot reach the target ${redactUrl(url)}: ${why}`);
  }
}

/** A stdio target's server processes run on the server CPUs; an HTTP target's run elsewhere. */
function pinnedTarget(target: Target, cpus: string | undefined): Target {
  if (target.kind !== 'stdio' || cpus === undefined) return target;
  const [command, args] = pinnedCommand(target.command, target.args, cpus);
  return { ...target, command, args };
}

/**
 * A stdio target's processes are this run's children while its step runs (each agent's, closed
 * after the step): the CPU under this process, but for the HTTP servers started here.
 */
function stdioCpu(
  target: Target,
  cpus: string | undefined,
  servers: readonly number[],
): Pick<PlanTarget, 'serverCpuUs'> | undefined {
  if (target.kind !== 'stdio' || cpus === undefined) return undefined;
  return { serverCpuUs: () => cpuUnder(process.pid, { withRoot: false, skip: servers }) };
}

/** A database's re-indexing, recording the indexes each set leaves in `facts`. */
function recordIndexes(
  db: Database,
  facts: DatabaseFacts,
  reindex: PlanTarget['reindex'],
): Pick<PlanTarget, 'reindex'> | undefined {
  if (!reindex) return undefined;
  return {
    reindex: async (set) => {
      const changed = await reindex(set);
      await indexesAfter(db, facts, set);
      return changed;
    },
  };
}

/** One index set when the databases agree (or there is one), else each named by its engine. */
function foundIndexes(found: readonly { name: string; indexes: string }[]): string[] {
  const sets = [...new Set(found.map((f) => f.indexes))];
  return sets.length > 1 ? found.map((f) => `${f.name}: ${f.indexes}`) : sets;
}

function uniqueLabel(name: string, taken: readonly { label: string }[]): string {
  let label = name;
  for (let i = 2; taken.some((t) => t.label === label); i++) label = `${name}-${i}`;
  return label;
}
