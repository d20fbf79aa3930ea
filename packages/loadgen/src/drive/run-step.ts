/**
 * One measured step: N simulated agents against one target for warm-up + duration, closed loop
 * (call, wait, call) or open loop (calls arrive at a fixed rate whether or not the target keeps
 * up); or through load stages that move the active agents or the rate over time (stages.ts).
 * The driver owns all timing; agents only perform calls. Failures are data: they are counted by
 * kind, and a thrown error is just another outcome.
 */
import type { StepMeasurement, StepResult } from '@mcp-db-bench/contract';
import { INTERVAL_MS, StepRecorder } from '../metrics/recorder.js';
import { type Clock, realClock } from './clock.js';
import type { MachineWindow } from './machine.js';
import { type ClientProbe, processProbe } from './probe.js';
import {
  type AgentChange,
  agentChanges,
  arrivals,
  meanAgents,
  peakTarget,
  type Stage,
  stagesDuration,
  targetAt,
} from './stages.js';

/** What one call of one agent produced. `op` is the operation type the latency is filed under. */
export type OpOutcome = { op: string; ok: true } | { op: string; ok: false; errorKind: string };

export interface AgentLoop {
  /** Performs exactly one operation (one tool call) and resolves when it is done. */
  next(): Promise<OpOutcome>;
  /** its client's running count of transparent re-initializations (McpClient.reinitialized) */
  readonly reinitialized?: number;
  /**
   * A replayed host's think time: milliseconds to wait before the next operation, never timed as
   * its latency. An agent that has it (even at 0) gets its time split in the step's `sessionTime`.
   */
  pause?(): number;
  close(): Promise<void>;
}

export type LoopMode = 'closed' | 'open';

export interface RunStepOptions {
  agents: number;
  mode: LoopMode;
  /** open loop: intended calls per second across all agents */
  rate?: number;
  warmupMs: number;
  /** with `stages`: their total, whatever is given here */
  durationMs: number;
  /**
   * Load stages (stages.ts), timed from the measured window's start; the warm-up holds the level
   * they start at. Closed loop: targets are active agents, out of `agents` connected up front
   * (as k6 initialises its VUs first), so connecting is never measured; an agent above the
   * target finishes its call and waits. Open loop: targets are calls per second (`rate` unused),
   * served by the `agents` pool.
   */
  stages?: readonly Stage[];
  makeAgent(index: number): Promise<AgentLoop>;
  clock?: Clock;
  /** defaults to `processProbe()` (CPU and event-loop delay of this process) */
  probe?: ClientProbe;
  /** the CPU the server's processes have used so far, µs: read when the window opens and closes (`server` in the result) */
  serverCpuUs?: () => number;
  /** what else used the machine: a window opened with the measured window, its answer the step's `interference` */
  machine?: () => MachineWindow | undefined;
  /** open loop: a call starting more than this after its intended time is late (default 1 ms) */
  lateToleranceMs?: number;
  /** open loop: intended calls that may wait for a free agent before more are dropped (default agents * 4) */
  maxQueue?: number;
  /** ends the measured window early; calls in flight still finish and are counted */
  signal?: AbortSignal;
  /**
   * Called when the measured window opens and after each whole second of it, with the calls and
   * errors so far: progress and samplers follow the step without timers of their own. It runs on
   * its own sleep, never on the calls' path.
   */
  onSecond?: (tick: SecondTick) => void;
  /** awaited once the agents are connected, before the clock starts: a sharded run waits here for the step's agreed instant */
  ready?: () => Promise<void>;
  /** the operation whose success is one committed transaction (Workload.commits): counted in `commits` */
  commitOp?: string;
}

export interface SecondTick {
  /** milliseconds since the measured window opened */
  atMs: number;
  calls: number;
  errors: number;
  /** staged closed loop: agents active now */
  agents?: number;
  /** staged open loop: the intended calls per second now */
  rate?: number;
}

/** The parts of a contract `stepResult` the driver knows; the caller adds target, workload, agents... */
export type { StepMeasurement };

export type OpenLoopStats = NonNullable<StepResult['openLoop']>;

export const DEFAULT_LATE_TOLERANCE_MS = 1;
export const QUEUE_PER_AGENT = 4;

/** Error kind of a thrown value: `McpCallError.kind` and the like, else `exception`. */
export function errorKindOf(err: unknown): string {
  const kind = typeof err === 'object' && err !== null ? (err as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' && kind !== '' ? kind : 'exception';
}

interface Window {
  clock: Clock;
  recorder: StepRecorder;
  /** clock time the step (warm-up included) started */
  origin: number;
  /** clock time the measured window starts (end of warm-up) */
  start: number;
  /** clock time no new call may start (open loop: be intended) at or after; moves earlier on abort */
  end: number;
  /** calls that started before `end` and ended after it, and the latest such end (clock time) */
  overrun: { calls: number; lastEnd: number };
  /** the commit operation's outcomes in the window, when the workload has one */
  commits?: NonNullable<StepMeasurement['commits']>;
}

/** Which agents may call: those with an index below `active`; the others wait for it to rise. */
class Gate {
  #waiting: Array<{ index: number; resolve: () => void }> = [];
  constructor(public active: number) {}

  set(active: number): void {
    this.active = active;
    const ready = this.#waiting.filter((w) => w.index < active);
    this.#waiting = this.#waiting.filter((w) => w.index >= active);
    for (const w of ready) w.resolve();
  }

  wait(index: number): Promise<void> {
    return new Promise((resolve) => this.#waiting.push({ index, resolve }));
  }
}

export async function runStep(options: RunStepOptions): Promise<StepMeasurement> {
  validate(options);
  const stages = options.stages;
  const planned = stages ? stagesDuration(stages) : options.durationMs;
  const changes = stages && options.mode === 'closed' ? agentChanges(stages) : undefined;
  const clock = options.clock ?? realClock;
  const probe = options.probe ?? processProbe();
  const agents = await createAgents(options);
  try {
    await options.ready?.();
    const t0 = clock.now();
    const start = t0 + options.warmupMs;
    // wall-clock time of the window's opening, so steps of several processes line up
    const startedAt = Math.round(Date.now() + options.warmupMs);
    const end = start + planned;
    const window: Window = {
      clock,
      recorder: new StepRecorder(start),
      origin: t0,
      start,
      end,
      overrun: { calls: 0, lastEnd: 0 },
      ...(options.commitOp ? { commits: { op: options.commitOp, committed: 0, conflicts: 0, failed: 0 } } : {}),
    };
    const onAbort = () => {
      window.end = Math.min(window.end, clock.now());
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    let probeStartedAt = start;
    let serverFrom: number | undefined;
    let machine: MachineWindow | undefined;
    const startProbe = () => {
      probeStartedAt = clock.now();
      probe.start();
      serverFrom = options.serverCpuUs?.();
      machine = options.machine?.();
    };
    const probing = options.warmupMs > 0 ? clock.sleep(options.warmupMs).then(startProbe) : startProbe();

    const level = (atMs: number): Pick<SecondTick, 'agents' | 'rate'> =>
      changes ? { agents: levelAt(changes, atMs) } : stages ? { rate: targetAt(stages, atMs) } : {};
    const onSecond = options.onSecond;
    const ticking = onSecond ? tick(window, (t) => onSecond({ ...t, ...level(t.atMs) })) : undefined;
    const intended: number[] = [];
    const openLoop = options.mode === 'open' ? await runOpen(agents, window, options, intended) : null;
    if (options.mode === 'closed') {
      const gate = changes ? new Gate(changes[0]!.agents) : undefined;
      await Promise.all([
        ...agents.map((agent, i) => runClosed(agent, i, window, gate)),
        gate && follow(window, gate, changes!),
      ]);
    }
    ticking?.stop();
    await probing;
    const wallMs = clock.now() - probeStartedAt;
    const reading = probe.stop();
    const serverUs = serverFrom === undefined ? undefined : options.serverCpuUs!() - serverFrom;
    const interference = machine?.stop();
    options.signal?.removeEventListener('abort', onAbort);

    // the configured figure unless aborted: `end - start` of two clock readings is not exact
    const durationMs = window.end === end ? planned : Math.max(0, window.end - start);
    const recorded = window.recorder.finish(durationMs);
    if (changes)
      for (const i of recorded.intervals)
        i.agents = round2(meanAgents(changes, i.atMs, Math.min(i.atMs + INTERVAL_MS, durationMs)));
    else if (stages) for (const [n, i] of recorded.intervals.entries()) i.rate = intended[n] ?? 0;
    const completed = recorded.calls + window.recorder.errorCount;
    return {
      mode: options.mode,
      rate: options.mode === 'open' ? (stages ? peakTarget(stages) : options.rate!) : null,
      durationMs,
      ...recorded,
      client: {
        cpuPerCallUs: completed > 0 ? reading.cpuUs / completed : 0,
        cpuUtilization: wallMs > 0 ? reading.cpuUs / (wallMs * 1000) : 0,
        eventLoopDelayP99Ms: reading.eventLoopDelayP99Ms,
        eventLoopDelayMaxMs: reading.eventLoopDelayMaxMs,
      },
      ...(serverUs === undefined ? {} : { server: { cpuPerCallUs: completed > 0 ? serverUs / completed : 0 } }),
      openLoop,
      startedAt,
      ...overrunOf(window),
      ...(window.commits ? { commits: window.commits } : {}),
      ...(interference ? { interference } : {}),
    };
  } finally {
    // closing is not measured, and a failing close must not cost the step its results
    await Promise.allSettled(agents.map((agent) => agent.close()));
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Calls still running when the step ended, and how long after it the last one finished (ms, to 0.1). */
function overrunOf(window: Window): Pick<StepMeasurement, 'overrun'> {
  const { calls, lastEnd } = window.overrun;
  return calls > 0 ? { overrun: { calls, lastEndedAfterMs: Math.round((lastEnd - window.end) * 10) / 10 } } : {};
}

/** A call that began before the step's end and finished after it: the step's time did not hold it. */
function overran(window: Window, started: number, endedAt: number): void {
  if (started >= window.end || endedAt <= window.end) return;
  window.overrun.calls++;
  window.overrun.lastEnd = Math.max(window.overrun.lastEnd, endedAt);
}

const levelAt = (changes: readonly AgentChange[], atMs: number) => changes.findLast((c) => c.atMs <= atMs)?.agents ?? 0;

/**
 * Sleeps until `due` in steps of at most a second, so an abort (which moves `window.end`) ends a
 * long wait soon. The last step is one sleep, taken as done: a timer may wake a fraction of a
 * millisecond early, and sleeping again for that would make the call late.
 */
async function sleepUntil(window: Window, due: number): Promise<void> {
  const { clock } = window;
  for (let wait = due - clock.now(); wait > 0 && clock.now() < window.end; wait = due - clock.now()) {
    await clock.sleep(Math.min(wait, INTERVAL_MS));
    if (wait <= INTERVAL_MS) return;
  }
}

/** Moves the gate through the stages' changes, then lets every waiting agent see the window close. */
async function follow(window: Window, gate: Gate, changes: readonly AgentChange[]): Promise<void> {
  for (const change of changes.slice(1)) {
    const due = window.start + change.atMs;
    await sleepUntil(window, due);
    if (due >= window.end) break;
    gate.set(change.agents);
  }
  await sleepUntil(window, window.end);
  gate.set(Number.POSITIVE_INFINITY);
}

/**
 * Ticks at the window's start and each whole second of it, the window's end included: `stop`
 * makes the ticks already due (the last one's timer can fire after the agents saw the end) and
 * no more.
 */
function tick(window: Window, onSecond: (tick: SecondTick) => void): { stop(): void } {
  const { clock, recorder } = window;
  let stopped = false;
  let next = 0;
  const makeDue = () => {
    const until = Math.min(window.end, clock.now());
    for (; window.start + next <= until; next += INTERVAL_MS) {
      onSecond({ atMs: next, calls: recorder.calls, errors: recorder.errorCount });
    }
  };
  void (async () => {
    while (!stopped && window.start + next <= window.end) {
      await clock.sleep(window.start + next - clock.now());
      if (!stopped) makeDue();
    }
  })();
  return {
    stop() {
      if (!stopped) makeDue();
      stopped = true;
    },
  };
}

function validate(o: RunStepOptions): void {
  if (!Number.isInteger(o.agents) || o.agents < 1)
    throw new RangeError(`agents must be a positive integer: ${o.agents}`);
  if (!(o.warmupMs >= 0) || !(o.durationMs >= 0)) throw new RangeError('warmupMs and durationMs must be >= 0');
  if (o.stages) {
    if (o.stages.length === 0 || !(stagesDuration(o.stages) > 0))
      throw new RangeError('stages need a total duration above 0');
    if (o.stages.some((s) => !(s.durationMs >= 0) || !(s.target >= 0)))
      throw new RangeError('stage durations and targets must be >= 0');
    if (o.mode === 'closed' && peakTarget(o.stages) > o.agents)
      throw new RangeError(`stages reach ${peakTarget(o.stages)} agents, more than the ${o.agents} connected`);
    if (peakTarget(o.stages) === 0) throw new RangeError('stages never rise above 0');
    return;
  }
  if (o.mode === 'open' && !(typeof o.rate === 'number' && o.rate > 0 && Number.isFinite(o.rate))) {
    throw new RangeError(`open loop needs a positive rate: ${o.rate}`);
  }
}

/** All agents at once, before the clock starts; if one fails, the others are closed. */
async function createAgents(options: RunStepOptions): Promise<AgentLoop[]> {
  const settled = await Promise.allSettled(Array.from({ length: options.agents }, (_, i) => options.makeAgent(i)));
  const agents = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await Promise.allSettled(agents.map((agent) => agent.close()));
    throw failed.reason;
  }
  return agents;
}

async function invoke(agent: AgentLoop): Promise<OpOutcome> {
  try {
    return await agent.next();
  } catch (err) {
    return { op: '', ok: false, errorKind: errorKindOf(err) };
  }
}

/** An operation's outcome, and the re-initializations its agent made during it (`before`: the count when it started). */
function file(
  window: Window,
  agent: AgentLoop,
  before: number,
  outcome: OpOutcome,
  from: number,
  endedAt: number,
): void {
  if (outcome.ok) window.recorder.success(outcome.op, endedAt - from, endedAt);
  else window.recorder.failure(outcome.errorKind, endedAt);
  const commits = window.commits;
  if (commits && outcome.op === commits.op) {
    if (outcome.ok) commits.committed++;
    else if (outcome.errorKind === 'tool:conflict') commits.conflicts++;
    else commits.failed++;
  }
  const reinitialized = (agent.reinitialized ?? 0) - before;
  if (reinitialized > 0) window.recorder.reinitialized(reinitialized);
}

/** Back to back until the window closes; a call counts if it started inside the window. */
async function runClosed(agent: AgentLoop, index: number, window: Window, gate: Gate | undefined): Promise<void> {
  const { clock } = window;
  for (let started = clock.now(); started < window.end; started = clock.now()) {
    if (gate && index >= gate.active) {
      await gate.wait(index);
      continue;
    }
    if (agent.pause) {
      const thinkMs = agent.pause();
      if (thinkMs > 0) {
        await sleepUntil(window, started + thinkMs);
        const thought = clock.now();
        // the think time counts where it fell in the window; no call starts once it closed
        if (thought > window.start)
          window.recorder.thought(Math.min(thought, window.end) - Math.max(started, window.start));
        if (thought >= window.end) break;
        started = thought;
      }
    }
    const before = agent.reinitialized ?? 0;
    const outcome = await invoke(agent);
    const endedAt = clock.now();
    overran(window, started, endedAt);
    if (started >= window.start) {
      file(window, agent, before, outcome, started, endedAt);
      // the part inside the window, as the think time: together they never pass agents × duration
      if (agent.pause) window.recorder.called(Math.max(0, Math.min(endedAt, window.end) - started));
    }
  }
}

/**
 * Intended start times every 1000/rate ms from the step's start, each handed to an idle agent,
 * else queued, else dropped. Latency runs from the intended time, so a stalled target cannot
 * hide its stall by slowing the arrivals (no coordinated omission).
 */
async function runOpen(
  agents: AgentLoop[],
  window: Window,
  options: RunStepOptions,
  intendedPerInterval: number[],
): Promise<OpenLoopStats> {
  const { clock } = window;
  const tolerance = options.lateToleranceMs ?? DEFAULT_LATE_TOLERANCE_MS;
  const maxQueue = options.maxQueue ?? agents.length * QUEUE_PER_AGENT;
  const stats: OpenLoopStats = { intended: 0, late: 0, dropped: 0 };
  const queue: number[] = [];
  const idle: Array<(intended: number | undefined) => void> = [];
  let closed = false;

  const nextIntended = (): number | undefined | Promise<number | undefined> => {
    if (queue.length > 0) return queue.shift();
    if (closed) return undefined;
    return new Promise((resolve) => idle.push(resolve));
  };

  const work = async (agent: AgentLoop): Promise<void> => {
    for (let intended = await nextIntended(); intended !== undefined; intended = await nextIntended()) {
      const started = clock.now();
      const before = agent.reinitialized ?? 0;
      const outcome = await invoke(agent);
      const endedAt = clock.now();
      overran(window, started, endedAt);
      if (intended < window.start) continue;
      if (started - intended > tolerance) stats.late++;
      file(window, agent, before, outcome, intended, endedAt);
    }
  };

  const dispatch = (intended: number): void => {
    const measured = intended >= window.start;
    if (measured) {
      stats.intended++;
      const i = Math.floor((intended - window.start) / INTERVAL_MS);
      intendedPerInterval[i] = (intendedPerInterval[i] ?? 0) + 1;
    }
    const agent = idle.shift();
    if (agent !== undefined) agent(intended);
    else if (queue.length < maxQueue) queue.push(intended);
    else if (measured) stats.dropped++;
  };

  const workers = agents.map(work);
  // A timer that fires late finds several calls due and dispatches them at once, so arrivals are not thinned.
  for (const intended of options.stages
    ? stagedTimes(window, options.stages)
    : steadyTimes(window.origin, 1000 / options.rate!)) {
    if (intended >= window.end) break;
    if (intended > clock.now()) await sleepUntil(window, intended); // an overdue call goes at once, no await
    if (intended >= window.end) break; // aborted while asleep
    dispatch(intended);
  }
  // stages may end at rate 0 before the window does: the step still lasts its time
  if (options.stages) await sleepUntil(window, window.end);
  closed = true;
  for (const agent of idle.splice(0)) agent(undefined);
  await Promise.all(workers);
  return stats;
}

/** Every `interval` ms from `origin`, from the index, not a running sum, so the schedule does not drift. */
function* steadyTimes(origin: number, interval: number): Generator<number, never, undefined> {
  for (let k = 0; ; k++) yield origin + k * interval;
}

/** The warm-up at the rate the stages start from, then the stages' arrivals. */
function* stagedTimes(window: Window, stages: readonly Stage[]): Generator<number, void, undefined> {
  const first = targetAt(stages, 0);
  if (first > 0)
    for (const t of steadyTimes(window.origin, 1000 / first)) {
      if (t >= window.start) break;
      yield t;
    }
  for (const offset of arrivals(stages)) yield window.start + offset;
}
