import { RESULT_FILE_VERSION, type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { MergeError, mergeShards, summarize } from '@mcp-db-bench/report';
import { beforeAll, describe, expect, it } from 'vitest';
import { nullProbe } from '../src/drive/probe.js';
import type { AgentLoop } from '../src/drive/run-step.js';
import type { PlanResult } from '../src/runner/plan.js';
import { runPlan, shardAgents } from '../src/runner/run-plan.js';
import { WORKLOADS } from '../src/workloads/index.js';
import { planOf, type TestPlan } from './support/plan.js';

/** A target whose agents answer after a real millisecond, noting which global agent indexes were started. */
function target(started: number[]) {
  return {
    label: 'raw',
    tools: ['echo'],
    agent: async (index: number): Promise<AgentLoop> => {
      started.push(index);
      return {
        next: () => new Promise((resolve) => setTimeout(() => resolve({ op: `op-${index % 2}`, ok: true }), 1)),
        close: async () => {},
      };
    },
  };
}

/** N shards of one plan run side by side in this process, on the real clock, starting together. */
async function runShards(
  count: number,
  plan: Omit<TestPlan, 'targets' | 'shard'>,
): Promise<{ started: number[][]; results: PlanResult[] }> {
  const at = Date.now() + 100;
  const started = Array.from({ length: count }, (): number[] => []);
  const results = await Promise.all(
    started.map((mine, index) =>
      runPlan(
        planOf({ ...plan, targets: [target(mine)], shard: { index, count, start: async () => at, gapMs: 100 } }),
        { probe: nullProbe },
      ),
    ),
  );
  return { started, results };
}

const base = {
  indexes: [],
  workloads: [WORKLOADS.echo!],
  iterations: 1,
  warmupMs: 0,
  durationMs: 1200,
  seed: 1,
} satisfies Partial<TestPlan>;

function file(
  result: PlanResult,
  index: number,
  count: number,
  overrides: Partial<ResultFile['config']> = {},
): ResultFile {
  return {
    ...result,
    version: RESULT_FILE_VERSION,
    tool: { name: 'mcp-db-bench', version: 'test' },
    environment: {
      node: 'v24',
      platform: 'linux',
      arch: 'x64',
      cpuModel: `cpu of shard ${index}`,
      cpus: 2,
      memoryMb: 1,
      loadAverage: [0, 0, 0],
    },
    config: {
      targets: [{ label: 'raw', engine: null, url: null }],
      workloads: ['echo'],
      agents: [5, 2],
      durationMs: base.durationMs,
      warmupMs: 0,
      iterations: 1,
      protocol: 'legacy',
      client: 'lean',
      scale: null,
      seed: 1,
      indexes: [],
      rate: 300,
      shard: { index, count, runId: 'run-a', startAt: '2026-01-01T00:00:00.000Z' },
      ...overrides,
    },
  };
}

describe('sharded plans', () => {
  it('splits agents by global index, i % N == I, counting shards without agents', () => {
    expect([0, 1, 2].map((index) => shardAgents(5, { index, count: 3 }))).toEqual([2, 2, 1]);
    expect([0, 1, 2].map((index) => shardAgents(2, { index, count: 3 }))).toEqual([1, 1, 0]);
  });

  it('runs every agent once across the shards, splits the rate, and merges into one step per step with aligned seconds', async () => {
    const { started, results } = await runShards(3, { ...base, agents: [5, 2], rate: 300 });
    // shard I starts the agents whose global index is I, I+3, ... (their seeds follow the index)
    expect(started.map((s) => [...s].sort())).toEqual([[0, 0, 3], [1, 1, 4], [2]]);
    // every shard records both steps with the global agent count; shard 2 has none of the 2-agent step's agents
    for (const r of results) expect(r.steps.map((s) => s.agents)).toEqual([5, 2]);
    expect(results[2]!.steps[1]).toMatchObject({
      calls: 0,
      rate: 0,
      intervals: [],
      openLoop: { intended: 0, late: 0, dropped: 0 },
    });
    // the rate follows the agents: 300 × 2/5, 2/5, 1/5; then 300 × 1/2, 1/2, 0
    expect(results.map((r) => r.steps.map((s) => s.rate))).toEqual([
      [120, 150],
      [120, 150],
      [60, 0],
    ]);

    const merged = resultFile.parse(
      mergeShards(results.map((r, i) => ({ name: `shard-${i}.json`, result: file(r, i, 3) }))),
    );
    expect(merged.steps).toHaveLength(2);
    for (const [n, step] of merged.steps.entries()) {
      const parts = results.map((r) => r.steps[n]!);
      expect(step.agents).toBe(parts[0]!.agents);
      expect(step.rate).toBe(300);
      expect(step.calls).toBe(parts.reduce((a, p) => a + p.calls, 0));
      expect(step.openLoop!.intended).toBe(parts.reduce((a, p) => a + p.openLoop!.intended, 0));
      expect(summarize(step.all.histogram).count).toBe(step.calls);
      expect(Object.values(step.operations).reduce((a, o) => a + o.count, 0)).toBe(step.calls);
      // the shards opened the window together, so their seconds fall on the same two seconds
      expect(step.intervals.map((i) => i.atMs)).toEqual([0, 1000]);
      expect(step.intervals.reduce((a, i) => a + i.calls, 0)).toBe(step.calls);
      expect(step.startedAt).toBe(Math.min(...parts.map((p) => p.startedAt!)));
    }
    // open loop at 300/s for 1.2 s: the shards together intended what one process would
    expect(Math.abs(merged.steps[0]!.openLoop!.intended - 360)).toBeLessThanOrEqual(3);
    expect(merged.config.shard).toEqual({ count: 3, runId: 'run-a', startAt: '2026-01-01T00:00:00.000Z' });
    expect(merged.shards!.map((s) => s.environment.cpuModel)).toEqual([
      'cpu of shard 0',
      'cpu of shard 1',
      'cpu of shard 2',
    ]);
  });

  it('a shard that reaches a step after its agreed instant begins at once and says how late', async () => {
    const plan = { ...base, durationMs: 100, agents: [1], targets: [target([])] };
    const late = await runPlan(
      planOf({ ...plan, shard: { index: 0, count: 1, start: async () => Date.now() - 500 } }),
      { probe: nullProbe },
    );
    expect(late.warnings).toEqual([
      expect.stringMatching(/^shard 0 began raw echo × 1 \d+ ms after the agreed instant/),
    ]);
    const onTime = await runPlan(
      planOf({ ...plan, shard: { index: 0, count: 1, start: async () => Date.now() + 50 } }),
      { probe: nullProbe },
    );
    expect(onTime.warnings).toEqual([]);
  });

  it('refuses a plan a shard could not run', async () => {
    const start = async () => Date.now();
    const plan = { ...base, agents: [1], targets: [target([])] };
    await expect(runPlan(planOf({ ...plan, shard: { index: 3, count: 3, start } }))).rejects.toThrow(
      'shard index must be 0 to 2: 3',
    );
    await expect(
      runPlan(
        planOf({
          ...plan,
          workloads: [Object.values(WORKLOADS).find((w) => w.writes)!],
          shard: { index: 0, count: 2, start },
        }),
      ),
    ).rejects.toThrow(/writes: it cannot run sharded/);
  });
});

describe('merge refuses files that are not one run', () => {
  let results: PlanResult[] = [];
  beforeAll(async () => {
    ({ results } = await runShards(2, { ...base, durationMs: 200, agents: [2] }));
  });
  const shard = (i: number, overrides: Partial<ResultFile['config']> = {}) => ({
    name: `s${i}.json`,
    result: file(results[i]!, i, 2, overrides),
  });

  it('a shard of another run, naming both files and what differs', () => {
    const other = shard(1, {
      agents: [8],
      shard: { index: 1, count: 2, runId: 'run-b', startAt: '2026-01-01T00:00:00.000Z' },
    });
    expect(() => mergeShards([shard(0), { ...other, name: 'other.json' }])).toThrow(
      new MergeError(
        'other.json (shard 1 of run run-b) is from another run than s0.json (shard 0 of run run-a): configurations differ in agents',
      ),
    );
    const later = shard(1, { shard: { index: 1, count: 2, runId: 'run-c', startAt: '2026-01-01T00:00:00.000Z' } });
    expect(() => mergeShards([shard(0), later])).toThrow(/their run ids differ/);
    // one --run-id given to two runs: the start instants tell them apart
    const reused = shard(1, { shard: { index: 1, count: 2, runId: 'run-a', startAt: '2026-01-02T00:00:00.000Z' } });
    expect(() => mergeShards([shard(0), reused])).toThrow(
      'they began at different instants (2026-01-02T00:00:00.000Z and 2026-01-01T00:00:00.000Z): a --run-id used for two runs?',
    );
  });

  it('a shard given twice, a missing shard, a file that is no shard, and an already merged file', () => {
    expect(() => mergeShards([shard(0), shard(0)])).toThrow('shard 0 is given twice: s0.json and s0.json');
    expect(() => mergeShards([shard(1)])).toThrow('run run-a has 2 shards (0 to 1): shard 0 missing');
    expect(() => mergeShards([shard(0), shard(1, { shard: undefined })])).toThrow(
      's1.json is not a shard: it has no config.shard',
    );
    const merged = mergeShards([shard(0), shard(1)]);
    expect(() => mergeShards([{ name: 'run.json', result: merged }])).toThrow(
      'run.json is already a merged run of 2 shards',
    );
  });
});
