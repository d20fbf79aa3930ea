/**
 * The one benchmark loop: every command's plan runs here. `runStep` stays the inner loop, so
 * the runner adds nothing per call; around it, the runner orders the steps, skips what a target
 * cannot serve, combines slices, verifies writes and says what happens as events.
 */
import { TOOL_NAMES } from '@mcp-db-bench/contract';
import { combineSlices, comparisons, encode, newHistogram, stepName } from '@mcp-db-bench/report';
import type { McpClient } from '../clients/client.js';
import { type Clock, realClock } from '../drive/clock.js';
import type { ClientProbe } from '../drive/probe.js';
import { runStep, type StepMeasurement } from '../drive/run-step.js';
import { stagesDuration } from '../drive/stages.js';
import { startAgent } from '../loop.js';
import type { Workload } from '../workloads/workload.js';
import { openLedger, type WriteLedger } from '../writes/ledger.js';
import { restoreWrites } from '../writes/restore.js';
import { verifyWrites } from '../writes/verify.js';
import { checkTargets } from './check.js';
import { type Decomposed, decompose } from './decompose.js';
import type { RunEvent, StepKey } from './events.js';
import type { BenchPlan, PlanResult, PlanTarget } from './plan.js';
import { PlanResultBuilder } from './result.js';
import { measureSessionInit } from './session-init.js';
import { indexRounds, stepAgents } from './steps.js';

export interface RunPlanOptions {
  /** default: the real clock */
  clock?: Clock;
  /**
   * The builder the runner files its events in: a command that must leave a file when the run is
   * cut short passes its own and reads what was measured from it then (default: the runner's own).
   */
  results?: PlanResultBuilder;
  /** every event, in order */
  on?: (event: RunEvent) => void;
  /** the load generator's probe for every step (default: a process probe per step) */
  probe?: ClientProbe;
}

/** The first turn of a sliced step warms up fully; later turns reconnect and settle this long at most. */
const SETTLE_MS = 250;

interface Target {
  plan: PlanTarget;
  /** undefined: not checked (an agent target that makes its own call whatever the workload) */
  tools: ReadonlySet<string> | undefined;
  /** its client can send MCP ping (the protocol floor where it has no echo tool) */
  pings?: boolean;
}

interface Run {
  plan: BenchPlan;
  clock: Clock;
  probe: ClientProbe | undefined;
  emit: (event: RunEvent) => void;
  targets: Target[];
  /** what the plan's events have measured so far */
  built: PlanResultBuilder;
  /** sharded: the agreed start (epoch ms), once asked, and the steps begun so far */
  slots: { startAt?: number; next: number };
}

export async function runPlan(plan: BenchPlan, options: RunPlanOptions = {}): Promise<PlanResult> {
  validate(plan);
  const built = options.results ?? new PlanResultBuilder();
  const run: Run = {
    plan,
    clock: options.clock ?? realClock,
    probe: options.probe,
    emit: (event) => {
      built.add(event);
      options.on?.(event);
    },
    targets: [],
    slots: { next: 0 },
    built,
  };
  run.emit({
    type: 'plan-start',
    targets: plan.targets.map((t) => t.label),
    startedAt: new Date().toISOString(),
    config: plan.config,
  });
  for (const target of plan.targets) run.targets.push({ plan: target, ...(await toolsOf(target)) });
  if (plan.warmUp) for (const target of run.targets) await warmUp(run, target, plan.warmUp);

  const rounds = indexRounds(plan);
  const all = Array.from({ length: plan.config.iterations }, (_, i) => i + 1);
  // Comparing sides (index sets, targets): each iteration is a pass over every side, the
  // order rotated from one pass to the next, so a shared machine's drift lands on every side.
  const interleave = plan.repeat === 'plan' || rounds.length > 1 || plan.targets.length > 1;
  const passes = interleave ? all.map((i) => [i]) : [all];
  let applied: string | null = null;
  for (const [p, iterations] of passes.entries()) {
    const pass = iterations[0]!;
    // the last pass runs in the plan's order: it ends on the last index set, which the decomposition measures
    const turn = passes.length - 1 - p;
    for (const set of rotate(rounds, turn)) {
      if (set !== null && set !== applied) await reindex(run, set);
      applied = set;
      // targets that cannot re-index, and workloads without a database, run under the first index set only
      const leading = set === rounds[0];
      const present = run.targets.filter((t) => leading || t.plan.reindex);
      // session start on a server just started, and again in the last pass on one that served the run
      const first = p === 0 || plan.repeat === 'plan';
      const later = !first && turn === 0;
      if (plan.sessionInit && (first || later))
        for (const target of present) await sessionInit(run, target, set, pass, later);
      for (const workload of plan.workloads) {
        const targets = present.filter((t) => (leading || workload.database) && serves(run, t, workload));
        if (targets.length === 0) continue;
        for (const agents of stepAgents(plan, workload)) {
          for (const iteration of iterations)
            await step(run, rotate(targets, turn), { workload, agents, iteration, indexes: set });
        }
      }
    }
    if (plan.decomposition && (plan.shard?.index ?? 0) === 0 && (plan.repeat === 'plan' || turn === 0))
      await decomposition(run, pass);
  }
  run.emit({
    type: 'comparisons',
    comparisons: comparisons(run.built.steps, {
      targets: plan.targets.map((t) => t.label),
      indexes: rounds.filter((r): r is string => r !== null),
    }),
  });
  for (const line of busyWarnings(run)) run.emit({ type: 'warning', line });
  if (plan.check && !(plan.shard && plan.shard.index > 0)) await check(run, plan.check.calls);
  const result = built.result();
  run.emit({ type: 'plan-end', result });
  return result;
}

/** `items` begun at position `by` (mod its length). */
export const rotate = <T>(items: readonly T[], by: number): T[] => {
  const at = items.length ? by % items.length : 0;
  return [...items.slice(at), ...items.slice(0, at)];
};

function validate(plan: BenchPlan): void {
  const { config } = plan;
  const slices = config.slices ?? 1;
  if (plan.targets.length === 0) throw new RangeError('a plan needs a target');
  describes(plan);
  for (const [name, counts] of Object.entries(config.workloadAgents ?? {})) {
    if (!plan.workloads.some((w) => w.name === name))
      throw new RangeError(`agent counts for ${name}, a workload the plan does not run`);
    if (counts.length === 0) throw new RangeError(`${name}: an empty list of agent counts`);
    if (config.stages?.kind === 'agents') throw new RangeError(`${name}: agent stages set every workload's agents`);
  }
  for (const t of plan.targets)
    if (!t.client === !t.agent)
      throw new RangeError(`${t.label}: a target has a client or agents of its own, not both`);
  if (!Number.isInteger(config.iterations) || config.iterations < 1)
    throw new RangeError(`iterations must be a positive integer: ${config.iterations}`);
  if (!Number.isInteger(slices) || slices < 1) throw new RangeError(`slices must be a positive integer: ${slices}`);
  // a write step is verified as a whole, and its markers are unique within one turn only
  const writes = plan.workloads.find((w) => w.writes);
  if (writes && slices > 1) throw new RangeError(`the ${writes.name} workload writes: its steps cannot be sliced`);
  // a staged step's intervals follow its stages: a slice would restart them
  if (config.stages && slices > 1) throw new RangeError('a staged plan cannot be sliced');
  if (config.stages && config.rate) throw new RangeError('a staged plan takes its rate from the stages, not `rate`');
  const shard = plan.shard;
  if (shard) {
    if (!Number.isInteger(shard.count) || shard.count < 1)
      throw new RangeError(`shard count must be a positive integer: ${shard.count}`);
    if (!Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count)
      throw new RangeError(`shard index must be 0 to ${shard.count - 1}: ${shard.index}`);
    // a shard verifies only its own writes, while transfers of other shards move the same balances
    if (writes) throw new RangeError(`the ${writes.name} workload writes: it cannot run sharded`);
    if (config.stages) throw new RangeError('a staged plan cannot run sharded');
    if (slices > 1) throw new RangeError('a sharded plan cannot be sliced');
    if (config.durationAt)
      throw new RangeError("a sharded plan's steps begin a duration apart: they take no durationAt");
  }
}

/** The description names the plan's workloads, in order, and only targets the plan has. */
function describes({ config, workloads, targets }: BenchPlan): void {
  const named = workloads.map((w) => w.name);
  if (config.workloads.join(',') !== named.join(','))
    throw new RangeError(
      `the run's description names workloads ${config.workloads.join(', ')}, the plan runs ${named.join(', ')}`,
    );
  const labels = new Set(targets.map((t) => t.label));
  for (const t of config.targets)
    if (!labels.has(t.label)) throw new RangeError(`the run's description names a target the plan lacks: ${t.label}`);
}

/** How many of a step's agents a shard runs: the global indexes i with i % count == index. */
export const shardAgents = (agents: number, shard: { index: number; count: number }): number =>
  shard.index < agents ? Math.floor((agents - 1 - shard.index) / shard.count) + 1 : 0;

/** Sharded: sleeps until the next step's agreed instant; a shard that arrives late says by how much. */
async function slot(run: Run, key: StepKey): Promise<number> {
  const shard = run.plan.shard!;
  run.slots.startAt ??= await shard.start();
  const at =
    run.slots.startAt +
    run.slots.next++ * (run.plan.config.warmupMs + run.plan.config.durationMs + (shard.gapMs ?? DEFAULT_GAP_MS));
  const wait = at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  else if (-wait > LATE_SLOT_MS) {
    run.emit({
      type: 'warning',
      line: `shard ${shard.index} began ${key.target} ${key.workload} × ${key.agents} ${Math.round(-wait)} ms after the agreed instant: its load overlapped the other shards' only in part`,
    });
  }
  return at;
}

const DEFAULT_GAP_MS = 2000;
/** timers and event-loop turns make a few ms normal */
const LATE_SLOT_MS = 50;

/** A shard with none of a step's agents: nothing measured, in a result that merges cleanly. */
function idleStep(run: Run, mode: StepMeasurement['mode'], startedAt: number): StepMeasurement {
  const empty = () => ({ count: 0, histogram: encode(newHistogram()) });
  const open = mode === 'open';
  return {
    mode,
    rate: open ? 0 : null,
    durationMs: run.plan.config.durationMs,
    calls: 0,
    errors: {},
    reinitialized: 0,
    operations: {},
    all: empty(),
    intervals: [],
    client: { cpuPerCallUs: 0, cpuUtilization: 0, eventLoopDelayP99Ms: 0, eventLoopDelayMaxMs: 0 },
    openLoop: open ? { intended: 0, late: 0, dropped: 0 } : null,
    startedAt,
  };
}

async function toolsOf(target: PlanTarget): Promise<Pick<Target, 'tools' | 'pings'>> {
  if (target.tools || !target.client) return { tools: target.tools && new Set(target.tools) };
  return withClient(target.client, async (client) => ({
    tools: new Set((await client.listTools()).map((t) => t.name)),
    // sent once: a 2026-era session has no ping
    pings: client.ping
      ? await client.ping().then(
          () => true,
          () => false,
        )
      : false,
  }));
}

async function withClient<T>(factory: () => McpClient, use: (client: McpClient) => Promise<T>): Promise<T> {
  const client = factory();
  try {
    await client.open();
    return await use(client);
  } finally {
    await client.close();
  }
}

/** A session workload opens MCP sessions, so it needs an MCP target (not the bare floor) whatever tools it names. */
const has = (target: Target, workload: Workload) =>
  (!workload.session || target.plan.client !== undefined) &&
  workload.requires.every((tool) => target.tools?.has(tool) ?? true);

/** Whether a target offers every tool a workload needs; the first time it does not, says so. */
function serves(run: Run, target: Target, workload: Workload): boolean {
  if (has(target, workload)) return true;
  if (target.plan.servesOnly) return false;
  const label = target.plan.label;
  if (!run.built.skipped.some((s) => s.target === label && s.workload === workload.name)) {
    const missing = workload.requires.filter((tool) => !target.tools?.has(tool));
    const said = [...new Set(missing.map((tool) => target.plan.cannot?.[tool]).filter(Boolean))];
    const reason = said.length
      ? said.join('; ')
      : `it has no ${missing.join(', ')} tool${missing.length > 1 ? 's' : ''}`;
    const skip = { target: label, workload: workload.name, reason };
    run.emit({ type: 'skipped', ...skip });
  }
  return false;
}

async function warmUp(run: Run, target: Target, warm: NonNullable<BenchPlan['warmUp']>): Promise<void> {
  const client = target.plan.client;
  if (!client || !has(target, warm.workload)) return;
  run.emit({ type: 'activity', line: `${target.plan.label}: warming up the server` });
  await runStep({
    agents: warm.agents,
    mode: 'closed',
    warmupMs: 0,
    durationMs: warm.durationMs,
    clock: run.clock,
    probe: run.probe,
    makeAgent: (i) => startAgent(warm.workload, client(), run.plan.config.seed, i),
  });
}

/** Each database once a round, however many targets (protocol eras) share it. */
async function reindex(run: Run, set: string): Promise<void> {
  const owners = new Map<NonNullable<PlanTarget['reindex']>, string>();
  for (const t of run.plan.targets) if (t.reindex && !owners.has(t.reindex)) owners.set(t.reindex, t.label);
  for (const [apply, label] of owners) {
    run.emit({ type: 'activity', line: `${label}: ${set} indexes` });
    const changed = await apply(set);
    run.emit({
      type: 'log',
      line: `${label}: ${set} indexes (created ${changed.created}, dropped ${changed.dropped})`,
    });
  }
}

const indexesOf = (target: Target, set: string | null) => (target.plan.reindex ? set : null);

async function sessionInit(
  run: Run,
  target: Target,
  set: string | null,
  iteration: number,
  later: boolean,
): Promise<void> {
  const client = target.plan.client;
  if (!client) return;
  const indexes = indexesOf(target, set);
  run.emit({ type: 'activity', line: `${target.plan.label}${indexes ? ` (${indexes})` : ''}: session init` });
  const result = { target: target.plan.label, indexes, iteration, ...(await measureSessionInit(client, run.clock)) };
  run.emit({ type: 'session-init', iteration, result, ...(later ? { later } : {}) });
}

/**
 * Where the time goes, on every target with a driver and a protocol floor: the echo tool, or MCP
 * ping where it has none (a peer), all in one set of rounds that take turns.
 */
async function decomposition(run: Run, iteration: number): Promise<void> {
  const targets = run.targets.flatMap((target): Decomposed[] => {
    const { client, driver, label } = target.plan;
    if (!client || !driver) return [];
    if (target.tools?.has(TOOL_NAMES.echo)) return [{ label, driver, client, floor: 'echo' }];
    return target.pings ? [{ label, driver, client, floor: 'ping' }] : [];
  });
  if (targets.length === 0) return;
  run.emit({ type: 'activity', line: `${targets.map((t) => t.label).join(', ')}: where the time goes` });
  for (const d of await decompose(targets, run.clock)) {
    if ('results' in d) run.emit({ type: 'decomposition', iteration, target: d.label, results: d.results });
    else run.emit({ type: 'warning', line: `no decomposition of ${d.label}: ${d.failed}` });
  }
}

interface StepSpec {
  workload: Workload;
  agents: number;
  iteration: number;
  /** the round's index set (null: as found) */
  indexes: string | null;
}

/** One step on every target that serves it, in the order given: in turns (slices) when asked, then one result each. */
async function step(run: Run, targets: readonly Target[], spec: StepSpec): Promise<void> {
  const { config } = run.plan;
  // a staged step is one load curve: it is never cut into turns
  const slices = config.stages ? 1 : Math.max(config.slices ?? 1, ...targets.map((t) => t.plan.turns ?? 1));
  const turns = targets.map((): StepMeasurement[] => []);
  const done: { at: number; result: PlanResult['steps'][number] }[] = [];
  for (let slice = 0; slice < slices; slice++) {
    for (const [i, target] of targets.entries()) {
      const key: StepKey = {
        target: target.plan.label,
        indexes: spec.workload.database ? indexesOf(target, spec.indexes) : null,
        workload: target.plan.fileAs ?? spec.workload.name,
        agents: spec.agents,
        iteration: spec.iteration,
      };
      const stages = config.stages?.stages;
      const durationMs = stages
        ? stagesDuration(stages)
        : (config.durationAt?.[spec.agents] ?? config.durationMs) / slices;
      run.emit({ type: 'step-start', step: key, slice, slices, durationMs });
      // Write steps: accounts are read before (unmeasured) and everything is read back after.
      const client = target.plan.client;
      const ledger = spec.workload.writes && client ? await withClient(client, (c) => openLedger(c)) : undefined;
      const seed = config.seed + spec.iteration + 100 * slice;
      const agent = target.plan.agent;
      const mode = config.rate || config.stages?.kind === 'rate' ? 'open' : 'closed';
      // sharded: this shard's agents by their global index, and their share of the rate
      const { shard } = run.plan;
      const own = shard ? shardAgents(spec.agents, shard) : spec.agents;
      const global = (n: number) => (shard ? shard.index + n * shard.count : n);
      const rate = config.rate ? (config.rate * own) / spec.agents : undefined;
      turns[i]!.push(
        own === 0
          ? idleStep(run, mode, (await slot(run, key)) + config.warmupMs)
          : await runStep({
              agents: own,
              mode,
              rate,
              stages,
              warmupMs: slice === 0 ? config.warmupMs : Math.min(config.warmupMs, SETTLE_MS),
              durationMs,
              clock: run.clock,
              probe: run.probe,
              serverCpuUs: target.plan.serverCpuUs,
              machine: run.plan.machine,
              makeAgent: agent
                ? (n) => agent(global(n))
                : (n) => startAgent(spec.workload, client!(), seed, global(n), ledger),
              onSecond: (tick) => run.emit({ type: 'interval', step: key, slice, ...tick }),
              ready: shard && (() => slot(run, key).then(() => {})),
              commitOp: spec.workload.commits,
            }),
      );
      if (slice < slices - 1) continue;
      // a session workload says so in the file, so a report can show its sessions without the workload table
      const result = { ...key, ...combineSlices(turns[i]!), ...(spec.workload.session ? { sessions: true } : {}) };
      if (ledger && client) {
        run.emit({ type: 'activity', line: `${key.target}: verifying ${ledger.marker}` });
        Object.assign(result, { verification: await verify(client, ledger) });
        run.emit({ type: 'activity', line: `${key.target}: putting the dataset back` });
        const restored = await withClient(client, (c) => restoreWrites(c, ledger));
        Object.assign(result, { restored });
        if (!restored.ok)
          run.emit({
            type: 'warning',
            line: `could not put the dataset back after ${stepName(result)}: ${restored.problem}; the steps after it read what it left (seed --force reloads)`,
          });
      }
      done.push({ at: run.targets.indexOf(target), result });
    }
  }
  // whatever order the turns took, the results are filed in the plan's
  for (const { result } of done.sort((a, b) => a.at - b.at)) run.emit({ type: 'step-end', step: result });
}

/** The answer-agreement and token-cost pass, on every MCP target, after everything measured. */
async function check(run: Run, calls: number): Promise<void> {
  const targets = run.targets
    .filter((t) => t.plan.client)
    .map((t) => ({ label: t.plan.label, client: t.plan.client! }));
  if (targets.length === 0) return;
  run.emit({ type: 'activity', line: `comparing answers and counting tokens (${calls} calls a workload)` });
  const byLabel = new Map(run.targets.map((t) => [t.plan.label, t]));
  try {
    const checked = await checkTargets(targets, run.plan.workloads, run.plan.config.seed, calls, (label, workload) =>
      has(byLabel.get(label)!, workload),
    );
    run.emit({ type: 'check', tokens: checked.tokens, agreement: checked.agreement });
    // each call's failure is in the agreement (a mismatch); these say what had nothing to compare with
    for (const failed of checked.failures) run.emit({ type: 'warning', line: `check pass: ${failed}` });
  } catch (error) {
    // the measurements stand without it: say why there is no agreement or token cost
    run.emit({ type: 'warning', line: `no answer-agreement check or token cost: ${(error as Error).message}` });
  }
}

const verify = (client: () => McpClient, ledger: WriteLedger) => withClient(client, (c) => verifyWrites(c, ledger));

/** The load generator's own CPU above this share of a core: it may be measuring itself, not the server. */
const BUSY_CPU = 0.8;
/** Busy steps named in the warning; the rest are counted. */
const BUSY_NAMED = 3;

/**
 * One line for the run when the load generator's own CPU says it was short, with the busiest
 * steps named. Event-loop delay alone is not enough: on a shared machine the loop lags when other
 * processes take the cores, while the generator itself idles (the issue saw 35 of 84 steps warned
 * at 0-1% CPU); each step's delay stays in the result file.
 */
function busyWarnings(run: Run): string[] {
  // agent targets (the bare floor) are meant to saturate the client: that is what they measure
  const own = new Set(run.plan.targets.filter((t) => t.agent).map((t) => t.label));
  const measured = run.built.steps.filter((s) => !own.has(s.target));
  const busy = measured
    .filter((s) => s.client.cpuUtilization > BUSY_CPU)
    .sort((a, b) => b.client.cpuUtilization - a.client.cpuUtilization);
  if (busy.length === 0) return [];
  const named = busy
    .slice(0, BUSY_NAMED)
    .map((s) => `${stepName(s)} ${Math.round(s.client.cpuUtilization * 100)}%`)
    .join(', ');
  const more = busy.length > BUSY_NAMED ? `, and ${busy.length - BUSY_NAMED} more` : '';
  return [
    `the load generator was busy in ${busy.length} of ${measured.length} steps, its own CPU above ${BUSY_CPU * 100}% of a core (${named}${more}): it may be the bottleneck of those steps`,
  ];
}
