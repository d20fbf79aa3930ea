import { TOOL_NAMES } from '@mcp-db-bench/contract';
import { combineSlices } from '@mcp-db-bench/report';
import { describe, expect, it } from 'vitest';
import type { McpClient, ToolCallResult } from '../src/clients/client.js';
import { FakeClock } from '../src/drive/clock.js';
import { nullProbe } from '../src/drive/probe.js';
import type { AgentLoop } from '../src/drive/run-step.js';
import type { RunEvent } from '../src/runner/events.js';
import type { PlanTarget } from '../src/runner/plan.js';
import { PlanResultBuilder } from '../src/runner/result.js';
import { runPlan } from '../src/runner/run-plan.js';
import { plannedSteps } from '../src/runner/steps.js';
import { WORKLOADS } from '../src/workloads/index.js';
import { planOf, type TestPlan } from './support/plan.js';

/** Every call takes this long on the fake clock. */
const CALL_MS = 10;

const ANSWERS: Record<string, unknown> = {
  [TOOL_NAMES.listTables]: { tables: [{ name: 'customers', kind: 'table', rows: 100 }] },
  [TOOL_NAMES.describeTable]: {
    rows: 100,
    columns: [{ name: 'id', type: 'integer', nullable: false }],
    primary_key: ['id'],
    foreign_keys: [],
    referenced_by: [],
  },
  [TOOL_NAMES.get]: { row: { id: 1 } },
  [TOOL_NAMES.echo]: { message: 'ping' },
};

/** An in-memory MCP server: it answers at once after CALL_MS of fake time, and offers `tools`. */
function fakeServer(clock: FakeClock, tools: readonly string[], callMs = CALL_MS) {
  const calls: string[] = [];
  const client = (): McpClient => ({
    open: async () => {
      await clock.sleep(CALL_MS);
      return { era: 'modern', protocolVersion: 'test' };
    },
    abandon: () => {},
    reinitialized: 0,
    listTools: async () => tools.map((name) => ({ name })),
    async callTool(name): Promise<ToolCallResult> {
      calls.push(name);
      await clock.sleep(callMs);
      return tools.includes(name)
        ? { isError: false, data: ANSWERS[name] }
        : { isError: true, data: { error: { code: 'unknown_tool' } } };
    },
    close: async () => {},
  });
  return { client, calls };
}

/** A target that is not MCP: its agents make one raw call each `next()`, like the bare HTTP floor. */
function rawAgent(clock: FakeClock): () => Promise<AgentLoop> {
  return async () => ({
    async next() {
      await clock.sleep(CALL_MS);
      return { op: 'http-echo', ok: true };
    },
    close: async () => {},
  });
}

function setup() {
  const clock = new FakeClock();
  const reindexed: string[] = [];
  const reindex = async (profile: string) => {
    reindexed.push(profile);
    return { created: 1, dropped: 0 };
  };
  const withEcho = fakeServer(clock, Object.values(TOOL_NAMES));
  const noEcho = fakeServer(
    clock,
    Object.values(TOOL_NAMES).filter((t) => t !== TOOL_NAMES.echo),
  );
  const targets: PlanTarget[] = [
    { label: 'A', client: withEcho.client, reindex },
    { label: 'B', client: noEcho.client, reindex },
    { label: 'floor', agent: rawAgent(clock), tools: [TOOL_NAMES.echo], fileAs: 'http-echo' },
  ];
  const plan: TestPlan = {
    targets,
    indexes: ['baseline', 'optimized'],
    workloads: [WORKLOADS['point-read']!, WORKLOADS.echo!],
    agents: [1, 2],
    iterations: 1,
    warmupMs: 100,
    durationMs: 2000,
    seed: 1,
    slices: 2,
  };
  return { clock, plan, reindexed, withEcho, noEcho };
}

async function drive(clock: FakeClock, plan: TestPlan) {
  const events: RunEvent[] = [];
  const result = await clock.run(runPlan(planOf(plan), { clock, probe: nullProbe, on: (e) => events.push(e) }));
  return { events, result };
}

const name = (s: { target: string; indexes: string | null; workload: string; agents: number }) =>
  `${s.target} ${s.indexes ?? '-'} ${s.workload} × ${s.agents}`;

describe('runPlan', () => {
  it('runs the steps in plan order, taking turns over the targets slice by slice', async () => {
    const { clock, plan, reindexed } = setup();
    const { events, result } = await drive(clock, plan);
    expect(events[0]).toEqual({
      type: 'plan-start',
      targets: ['A', 'B', 'floor'],
      startedAt: result.startedAt,
      config: result.config,
    });
    // the run's description, as the plan gave it: the result file's configuration as it is
    expect(result.config).toMatchObject({ workloads: ['point-read', 'echo'], agents: [1, 2], slices: 2 });
    expect(events.at(-1)).toEqual({ type: 'plan-end', result });
    // a listener's builder (an interrupted run's partial file) makes the very result the runner returns
    const built = new PlanResultBuilder();
    for (const e of events) built.add(e);
    expect(built.result()).toEqual(result);
    // one re-index per round for the database A and B share
    expect(reindexed).toEqual(['baseline', 'optimized']);
    const turns = events.flatMap((e) => (e.type === 'step-start' ? [`${e.slice}: ${name(e.step)}`] : []));
    expect(turns.slice(0, 6)).toEqual([
      '0: A baseline point-read × 1',
      '0: B baseline point-read × 1',
      '1: A baseline point-read × 1',
      '1: B baseline point-read × 1',
      '0: A baseline point-read × 2',
      '0: B baseline point-read × 2',
    ]);
    // echo needs no database: once, in the first round, beside the floor; the second round re-runs the database workload only
    expect(result.steps.map(name)).toEqual([
      'A baseline point-read × 1',
      'B baseline point-read × 1',
      'A baseline point-read × 2',
      'B baseline point-read × 2',
      'A - echo × 1',
      'floor - http-echo × 1',
      'A - echo × 2',
      'floor - http-echo × 2',
      'A optimized point-read × 1',
      'B optimized point-read × 1',
      'A optimized point-read × 2',
      'B optimized point-read × 2',
    ]);
    expect(events.filter((e) => e.type === 'step-end').map((e) => e.type === 'step-end' && e.step)).toEqual(
      result.steps,
    );
  });

  it('skips a workload on a target without the tools it needs, once, with the reason, never as an error', async () => {
    const { clock, plan, noEcho } = setup();
    const { events, result } = await drive(clock, plan);
    const skips = [
      { target: 'B', workload: 'echo', reason: 'it has no echo tool' },
      { target: 'floor', workload: 'point-read', reason: 'it has no get tool' },
    ];
    expect(events.filter((e) => e.type === 'skipped')).toEqual(
      expect.arrayContaining(skips.map((s) => ({ type: 'skipped', ...s }))),
    );
    expect(events.filter((e) => e.type === 'skipped')).toHaveLength(2);
    expect(result.skipped).toEqual(expect.arrayContaining(skips));
    expect(noEcho.calls).not.toContain(TOOL_NAMES.echo);
    for (const step of result.steps) expect(step.errors, name(step)).toEqual({});
  });

  it('measures every turn for its share of the time and combines the turns exactly', async () => {
    const { clock, plan } = setup();
    const { events, result } = await drive(clock, plan);
    for (const step of result.steps) {
      // 2 slices of 1000 ms, CALL_MS per call, back to back
      expect(step.durationMs).toBe(2000);
      expect(step.calls, name(step)).toBe((2000 / CALL_MS) * step.agents);
      expect(step.all.count).toBe(step.calls);
      expect(step.intervals.map((i) => [i.atMs, i.calls])).toEqual([
        [0, (1000 / CALL_MS) * step.agents],
        [1000, (1000 / CALL_MS) * step.agents],
      ]);
    }
    // the second turn only settles: its warm-up is min(warmup, 250 ms)
    const first = events.find((e) => e.type === 'step-start');
    expect(first).toMatchObject({ slice: 0, slices: 2 });
  });

  it('reports each second of every turn with the calls and errors so far', async () => {
    const { clock, plan } = setup();
    const { events } = await drive(clock, {
      ...plan,
      workloads: [WORKLOADS['point-read']!],
      agents: [2],
      indexes: [],
      slices: 1,
      durationMs: 3000,
    });
    const ticks = events.flatMap((e) =>
      e.type === 'interval' ? [`${e.step.target} ${e.atMs}: ${e.calls}/${e.errors}`] : [],
    );
    // the calls that ended before the tick: each agent's call ending on it belongs to the next second
    const before = (s: number) => (s === 0 ? 0 : s * (1000 / CALL_MS) * 2 - 2);
    expect(ticks).toEqual(['A', 'B'].flatMap((t) => [0, 1, 2, 3].map((s) => `${t} ${s * 1000}: ${before(s)}/0`)));
  });

  it('times session starts per round and the decomposition once, on targets that can', async () => {
    const { clock, plan } = setup();
    const opened: string[] = [];
    const driver = async () => {
      opened.push('driver');
      return { count: async () => 100, select: async () => {}, close: async () => {} };
    };
    const targets = plan.targets.map((t) => (t.label === 'floor' ? t : { ...t, driver }));
    const { events, result } = await drive(clock, {
      ...plan,
      targets,
      agents: [1],
      sessionInit: true,
      decomposition: true,
    });
    expect(result.sessionInit.map((s) => `${s.target} ${s.indexes}`)).toEqual([
      'A baseline',
      'B baseline',
      'A optimized',
      'B optimized',
    ]);
    expect(result.sessionInit[0]).toMatchObject({
      cold: { count: 20 },
      warm: { count: 50 },
      full: { count: 20 },
      allTables: 1,
    });
    // B has no echo tool: there is nothing to compare its calls with
    expect(result.decomposition.map((d) => `${d.target}: ${d.operation}`)).toEqual([
      'A: get orders by id',
      'A: query order_items by order_id',
    ]);
    expect(opened).toEqual(['driver']);
    const order = events.flatMap((e) =>
      e.type === 'session-init' || e.type === 'decomposition' || e.type === 'step-end' ? [e.type] : [],
    );
    expect(order.at(-1)).toBe('decomposition');
    // one pass: no later measurement to set beside the first
    expect(result.sessionInit.map((s) => [s.iteration, s.later])).toEqual(Array(4).fill([1, undefined]));
  });

  it('times session starts again in the last pass, beside the first measurement of each target and profile', async () => {
    const { clock, plan } = setup();
    const { result } = await drive(clock, { ...plan, agents: [1], iterations: 3, sessionInit: true });
    expect(
      result.sessionInit.map((s) => `${s.target} ${s.indexes} #${s.iteration} then #${s.later?.iteration}`),
    ).toEqual(['A baseline #1 then #3', 'B baseline #1 then #3', 'A optimized #1 then #3', 'B optimized #1 then #3']);
    expect(result.sessionInit[0]!.later).toMatchObject({
      cold: { count: 20 },
      warm: { count: 50 },
      full: { count: 20 },
    });
  });

  it('measures each step for its agent count’s own duration when given one', async () => {
    const { clock, plan } = setup();
    const { result } = await drive(clock, {
      ...plan,
      targets: plan.targets.slice(0, 1),
      workloads: [WORKLOADS['point-read']!],
      indexes: [],
      slices: 1,
      agents: [1, 2],
      durationMs: 100,
      durationAt: { 2: 300 },
    });
    expect(result.steps.map((s) => `${s.agents}: ${s.durationMs} ms`)).toEqual(['1: 100 ms', '2: 300 ms']);
  });

  it('decomposes a server without an echo tool over MCP ping, in rounds that take turns; one that fails is left out with a warning', async () => {
    const { clock, plan } = setup();
    const times: string[] = [];
    const driver = (label: string) => async () => ({
      count: async () => 100,
      select: async () => {
        times.push(`${label} driver`);
        await clock.sleep(1);
      },
      close: async () => {},
    });
    /** a peer: no echo tool, but MCP ping; `broken`: its `get` answers a tool error */
    const peer = (label: string, broken: boolean) => () => {
      const tools = Object.values(TOOL_NAMES).filter((t) => t !== TOOL_NAMES.echo);
      const base = fakeServer(clock, tools, 2).client();
      return {
        ...base,
        ping: async () => {
          times.push(`${label} ping`);
          await clock.sleep(1);
        },
        callTool: async (tool: string, args: Record<string, unknown>): Promise<ToolCallResult> => {
          const answer = await base.callTool(tool, args);
          return broken && tool === TOOL_NAMES.get
            ? { isError: true, data: { error: { code: 'peer_error' } } }
            : answer;
        },
      };
    };
    const targets: PlanTarget[] = [
      { ...plan.targets[0]!, driver: driver('A') },
      { label: 'P', client: peer('P', false), driver: driver('P') },
      { label: 'X', client: peer('X', true), driver: driver('X') },
    ];
    const { result } = await drive(clock, { ...plan, targets, indexes: [], agents: [1], decomposition: true });
    expect(result.decomposition.map((d) => `${d.target}: ${d.operation} ${d.floor ?? 'echo'}`)).toEqual([
      'A: get orders by id echo',
      'A: query order_items by order_id echo',
      'P: get orders by id ping',
      'P: query order_items by order_id ping',
    ]);
    expect(result.decomposition[2]).toMatchObject({ full: { count: 500 }, echo: { count: 500 }, raw: { count: 500 } });
    expect(result.warnings).toContainEqual(
      expect.stringMatching(/^no decomposition of X: get orders by id \(MCP\) failed/),
    );
    // round by round, each round begun by the next server: P's first round after A's, its second before A's
    const firsts = times.filter((t) => t.endsWith('driver')).map((t) => t.split(' ')[0]);
    const runs = firsts.filter((t, i) => t !== firsts[i - 1]);
    expect(runs.slice(0, 5)).toEqual(['A', 'P', 'X', 'P', 'A']);
  });

  it('repeats the whole plan per iteration when asked, and each step back to back otherwise', async () => {
    const { clock, plan } = setup();
    const small = {
      ...plan,
      targets: plan.targets.slice(0, 1),
      workloads: [WORKLOADS['point-read']!],
      indexes: [],
      slices: 1,
      durationMs: 100,
      iterations: 2,
    };
    const steps = async (p: TestPlan) => (await drive(clock, p)).result.steps.map((s) => `${s.agents}#${s.iteration}`);
    expect(await steps(small)).toEqual(['1#1', '1#2', '2#1', '2#2']);
    expect(await steps({ ...small, repeat: 'plan' })).toEqual(['1#1', '2#1', '1#2', '2#2']);
  });

  it('alternates the sides it compares within each iteration, the order rotated, and pairs them per iteration', async () => {
    const { clock, plan, reindexed } = setup();
    const slow = fakeServer(clock, Object.values(TOOL_NAMES), 2 * CALL_MS);
    const reindex = plan.targets[0]!.reindex!;
    const { events, result } = await drive(clock, {
      ...plan,
      targets: [plan.targets[0]!, { label: 'B', client: slow.client, reindex }],
      workloads: [WORKLOADS['point-read']!],
      agents: [1],
      slices: 1,
      iterations: 3,
    });
    const order = events.flatMap((e) => (e.type === 'step-start' ? [`${name(e.step)} #${e.step.iteration}`] : []));
    // ABBA: drift over the run lands on both profiles and both targets; the last pass ends on the last profile
    expect(order).toEqual([
      'A baseline point-read × 1 #1',
      'B baseline point-read × 1 #1',
      'A optimized point-read × 1 #1',
      'B optimized point-read × 1 #1',
      'B optimized point-read × 1 #2',
      'A optimized point-read × 1 #2',
      'B baseline point-read × 1 #2',
      'A baseline point-read × 1 #2',
      'A baseline point-read × 1 #3',
      'B baseline point-read × 1 #3',
      'A optimized point-read × 1 #3',
      'B optimized point-read × 1 #3',
    ]);
    // a profile kept across a pass boundary is not applied again
    expect(reindexed).toEqual(['baseline', 'optimized', 'baseline', 'optimized']);
    // results are filed in the plan's target order whatever order the turns took
    expect(result.steps.slice(4, 6).map(name)).toEqual(['A optimized point-read × 1', 'B optimized point-read × 1']);
    const byKind = (kind: string) => result.comparisons!.filter((c) => c.kind === kind);
    expect(byKind('indexes').map((c) => `${c.base.target} ${c.base.indexes} → ${c.other.indexes}`)).toEqual([
      'A baseline → optimized',
      'B baseline → optimized',
    ]);
    expect(byKind('indexes')[0]).toMatchObject({
      unit: 'calls',
      iterations: [1, 2, 3],
      rate: [1, 1, 1],
      p50: [1, 1, 1],
      excluded: { empty: 0, overran: 0, unpaired: 0 },
    });
    // B answers in twice the time: half the calls, each pair of the same iteration
    const targets = byKind('targets');
    expect(targets.map((c) => `${c.other.target} vs ${c.base.target} (${c.base.indexes})`)).toEqual([
      'B vs A (baseline)',
      'B vs A (optimized)',
    ]);
    for (const c of targets) {
      expect(c.iterations).toEqual([1, 2, 3]);
      for (const r of c.rate!) expect(r).toBeCloseTo(0.5, 2);
      for (const r of c.p50) expect(r).toBeCloseTo(0.5, 2);
    }
  });

  it("warns once per run when the load generator's own CPU was short, not when only its event loop lagged", async () => {
    const { clock, plan } = setup();
    const small = { ...plan, targets: plan.targets.slice(0, 1), workloads: [WORKLOADS['point-read']!], indexes: [] };
    const probe = (cpuUs: number, delayMs: number) => ({
      start() {},
      stop: () => ({ cpuUs, eventLoopDelayP99Ms: delayMs, eventLoopDelayMaxMs: delayMs }),
    });
    const run = (p: ReturnType<typeof probe>) =>
      clock.run(runPlan(planOf({ ...small, slices: 1 }), { clock, probe: p }));
    // a busy machine: the loop lags 150 ms while the generator uses nothing itself
    expect((await run(probe(0, 150))).warnings).toEqual([]);
    // 2 s of CPU in each 2 s step: a full core
    const busy = await run(probe(2_000_000, 150));
    expect(busy.warnings).toHaveLength(1);
    expect(busy.warnings[0]).toMatch(
      /^the load generator was busy in 2 of 2 steps, its own CPU above 80% of a core \(A point-read × [12] 100%, A point-read × [12] 100%\): it may be the bottleneck of those steps$/,
    );
  });

  it('refuses to slice a step that writes: it is verified as a whole', async () => {
    const { plan } = setup();
    await expect(runPlan(planOf({ ...plan, workloads: [WORKLOADS.write!] }))).rejects.toThrow(/cannot be sliced/);
  });

  it('refuses a description that does not describe its plan: the result file would say what did not run', async () => {
    const described = planOf(setup().plan);
    await expect(runPlan({ ...described, config: { ...described.config, workloads: ['echo'] } })).rejects.toThrow(
      /names workloads echo, the plan runs point-read, echo/,
    );
    const stranger = { label: 'C', engine: null, url: null };
    await expect(runPlan({ ...described, config: { ...described.config, targets: [stranger] } })).rejects.toThrow(
      /names a target the plan lacks: C/,
    );
  });

  it('runs one staged step per workload and target, filed under the peak agents, its seconds saying the agents active', async () => {
    const { clock, plan } = setup();
    const staged: TestPlan = {
      ...plan,
      indexes: [],
      workloads: [WORKLOADS.echo!],
      agents: [1, 2, 8],
      slices: 1,
      stages: {
        kind: 'agents',
        stages: [
          { durationMs: 1000, target: 3 },
          { durationMs: 1000, target: 3 },
        ],
      },
    };
    const { events, result } = await drive(clock, staged);
    expect(result.steps.map(name)).toEqual(['A - echo × 3', 'floor - http-echo × 3']);
    for (const step of result.steps) {
      expect(step.durationMs).toBe(2000);
      expect(step.mode).toBe('closed');
      // 0→3 over the first second: 1 agent from 1/6 s, 2 from 1/2 s, 3 from 5/6 s
      expect(step.intervals.map((i) => i.agents)).toEqual([1.5, 3]);
    }
    expect(events.find((e) => e.type === 'step-start')).toMatchObject({ durationMs: 2000 });
    expect(events.flatMap((e) => (e.type === 'interval' && e.step.target === 'A' ? [e.agents] : []))).toEqual([
      0, 3, 3,
    ]);
  });

  it('runs rate stages as an open loop, a step per pool size, and refuses what would contradict them', async () => {
    const { clock, plan } = setup();
    const stages = { kind: 'rate' as const, stages: [{ durationMs: 1000, target: 20 }] };
    const staged: TestPlan = { ...plan, indexes: [], workloads: [WORKLOADS.echo!], agents: [1, 2], slices: 1, stages };
    const { result } = await drive(clock, staged);
    expect(result.steps.map(name)).toEqual([
      'A - echo × 1',
      'floor - http-echo × 1',
      'A - echo × 2',
      'floor - http-echo × 2',
    ]);
    for (const step of result.steps) {
      expect(step.mode).toBe('open');
      expect(step.rate).toBe(20);
      expect(step.intervals.map((i) => i.rate)).toEqual([10]);
      expect(step.openLoop?.intended).toBe(10);
    }
    await expect(runPlan(planOf({ ...staged, slices: 2 }))).rejects.toThrow(/staged plan cannot be sliced/);
    await expect(runPlan(planOf({ ...staged, rate: 5 }))).rejects.toThrow(/takes its rate from the stages/);
  });

  it('leaves the indexes alone when no workload reads the database', async () => {
    const { clock, plan, reindexed } = setup();
    const { result } = await drive(clock, { ...plan, workloads: [WORKLOADS.handshake!, WORKLOADS.echo!], agents: [1] });
    expect(reindexed).toEqual([]);
    // one round, under whatever indexes are there: each target's steps once an iteration
    expect(result.steps.filter((s) => s.target === 'A').map(name)).toEqual(['A - handshake × 1', 'A - echo × 1']);
  });

  it("steps each workload through its own agent counts, the others through the plan's", async () => {
    const { clock, plan } = setup();
    const own: TestPlan = {
      ...plan,
      targets: plan.targets.filter((t) => t.label !== 'B'),
      indexes: [],
      workloads: [WORKLOADS.handshake!, WORKLOADS['point-read']!, WORKLOADS.echo!],
      agents: [1],
      workloadAgents: { 'point-read': [1, 10, 50] },
      slices: 1,
    };
    const { result } = await drive(clock, own);
    expect(result.steps.map(name)).toEqual([
      // the handshake opens MCP sessions: never on the bare floor, whose tools it does not need
      'A - handshake × 1',
      'A - point-read × 1',
      'A - point-read × 10',
      'A - point-read × 50',
      'A - echo × 1',
      'floor - http-echo × 1',
    ]);
    const handshake = result.steps[0]!;
    expect(Object.keys(handshake.operations)).toEqual(['handshake']);
    expect(handshake.sessions).toBe(true);
    // open (10 ms) and tools/list (instant) per operation: 100 a second
    expect(handshake.calls).toBe(200);
    await expect(runPlan(planOf({ ...own, workloadAgents: { filtered: [2] } }))).rejects.toThrow(
      /agent counts for filtered, a workload the plan does not run/,
    );
    await expect(runPlan(planOf({ ...own, workloadAgents: { echo: [] } }))).rejects.toThrow(/empty list/);
  });
});

describe('combineSlices', () => {
  it('adds counts, merges histograms and weights the client figures by calls and time', async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, Object.values(TOOL_NAMES));
    const plan: TestPlan = {
      targets: [{ label: 'A', client: server.client }],
      indexes: [],
      workloads: [WORKLOADS.echo!],
      agents: [1],
      iterations: 1,
      warmupMs: 0,
      durationMs: 1000,
      seed: 1,
    };
    const [a] = (await drive(clock, plan)).result.steps;
    const [b] = (await drive(clock, { ...plan, agents: [3] })).result.steps;
    const one = { ...a!, client: { ...a!.client, cpuPerCallUs: 10, cpuUtilization: 0.5, eventLoopDelayP99Ms: 1 } };
    const three = { ...b!, client: { ...b!.client, cpuPerCallUs: 30, cpuUtilization: 0.1, eventLoopDelayP99Ms: 4 } };
    const c = combineSlices([one, three]);
    expect(c.calls).toBe(one.calls + three.calls);
    expect(c.all.count).toBe(one.calls + three.calls);
    expect(c.operations.echo!.count).toBe(one.calls + three.calls);
    expect(c.durationMs).toBe(2000);
    expect(c.intervals.map((i) => i.atMs)).toEqual([0, 1000]);
    expect(c.client.cpuPerCallUs).toBeCloseTo((10 * one.calls + 30 * three.calls) / (one.calls + three.calls));
    expect(c.client.cpuUtilization).toBeCloseTo(0.3);
    expect(c.client.eventLoopDelayP99Ms).toBe(4);
    // the machine's interference, weighted by the capacity each slice measured it over; none unless every slice has it
    const busy = (otherCpuShare: number, capacityMs: number) => ({
      interference: { otherCpuShare, stealShare: 0, ownCpuShare: 0.25, capacityMs },
    });
    expect(
      combineSlices([
        { ...one, ...busy(0.1, 1000) },
        { ...three, ...busy(0.4, 3000) },
      ]).interference,
    ).toEqual({
      otherCpuShare: 0.325,
      stealShare: 0,
      ownCpuShare: 0.25,
      capacityMs: 4000,
    });
    expect(combineSlices([{ ...one, ...busy(0.1, 1000) }, three]).interference).toBeUndefined();
    // re-initializations add up; a slice from an older file that lacks the count adds nothing, and none at all stays unknown
    expect(
      combineSlices([
        { ...one, reinitialized: 2 },
        { ...three, reinitialized: 3 },
      ]).reinitialized,
    ).toBe(5);
    expect(
      combineSlices([
        { ...one, reinitialized: 2 },
        { ...three, reinitialized: undefined },
      ]).reinitialized,
    ).toBe(2);
    expect(
      combineSlices([
        { ...one, reinitialized: undefined },
        { ...three, reinitialized: undefined },
      ]).reinitialized,
    ).toBeUndefined();
    expect(c.server).toBeUndefined();
    const served = combineSlices([
      { ...one, server: { cpuPerCallUs: 100 } },
      { ...three, server: { cpuPerCallUs: 300 } },
    ]);
    expect(served.server!.cpuPerCallUs).toBeCloseTo((100 * one.calls + 300 * three.calls) / (one.calls + three.calls));
    // a slice without the figure: none for the step, rather than a figure for part of it
    expect(combineSlices([{ ...one, server: { cpuPerCallUs: 100 } }, three]).server).toBeUndefined();
  });
});

describe('server CPU per call', () => {
  it("reads a target's server CPU as its measured window opens and closes, per call; only where the target can say", async () => {
    const clock = new FakeClock();
    const server = fakeServer(clock, Object.values(TOOL_NAMES));
    const reads: number[] = [];
    // a server busy half of a core: 500 µs of CPU each millisecond
    const serverCpuUs = () => {
      reads.push(clock.now());
      return clock.now() * 500;
    };
    const plan: TestPlan = {
      targets: [
        { label: 'pinned', client: server.client, serverCpuUs },
        { label: 'remote', client: server.client },
      ],
      indexes: [],
      workloads: [WORKLOADS.echo!],
      agents: [1],
      iterations: 1,
      warmupMs: 300,
      durationMs: 1000,
      seed: 1,
    };
    const [pinned, remote] = (await drive(clock, plan)).result.steps;
    expect(reads).toHaveLength(2);
    expect(reads[1]! - reads[0]!).toBe(1000);
    expect(pinned!.calls).toBe(1000 / CALL_MS);
    expect(pinned!.server).toEqual({ cpuPerCallUs: (1000 * 500) / pinned!.calls });
    expect(remote!.server).toBeUndefined();
  });
});

describe('plannedSteps: the steps progress counts are the steps runPlan measures', () => {
  /** What progress shows at the end: the planned steps less those of the skips, against the steps that ended. */
  async function counted(clock: FakeClock, plan: TestPlan) {
    const { events } = await drive(clock, plan);
    const planned = plannedSteps(planOf(plan));
    const skipped = events.flatMap((e) => (e.type === 'skipped' ? [planned.of(e.target, e.workload)] : []));
    return {
      planned: planned.steps - skipped.reduce((a, b) => a + b, 0),
      ended: events.filter((e) => e.type === 'step-end').length,
    };
  }

  it('on our databases: every index round for a database workload, the first only for echo, skips taken off', async () => {
    const { clock, plan } = setup();
    const { planned, ended } = await counted(clock, plan);
    expect(ended).toBeGreaterThan(0);
    expect(planned).toBe(ended);
  });

  it('on a --target server, which is never re-indexed: one round, though the plan names two index sets', async () => {
    const { clock, plan } = setup();
    const target = { ...plan.targets[0]!, reindex: undefined };
    const remote: TestPlan = { ...plan, targets: [target], workloads: [WORKLOADS['point-read']!], slices: 1 };
    const { planned, ended } = await counted(clock, remote);
    expect(ended).toBe(2); // one round × 2 agent counts × 1 iteration
    expect(planned).toBe(ended);
  });
});
