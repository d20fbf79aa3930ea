import { describe, expect, it } from 'vitest';
import { FakeClock } from '../src/drive/clock.js';
import { nullProbe } from '../src/drive/probe.js';
import { type AgentLoop, runStep, type SecondTick } from '../src/drive/run-step.js';
import {
  agentChanges,
  agentsAt,
  arrivals,
  meanAgents,
  peakTarget,
  type Stage,
  stagesDuration,
  targetAt,
} from '../src/drive/stages.js';

const s = (durationMs: number, target: number): Stage => ({ durationMs, target });
/** The spike: 0→1 over 5 s, 1→16 over 2 s, hold 16 for 5 s, 16→1 over 2 s. */
const spike = [s(5000, 1), s(2000, 16), s(5000, 16), s(2000, 1)];

describe('stage schedule', () => {
  it('interpolates from 0, linearly, and holds the last target past the end', () => {
    expect(stagesDuration(spike)).toBe(14_000);
    expect(peakTarget(spike)).toBe(16);
    expect(targetAt(spike, 0)).toBe(0);
    expect(targetAt(spike, 2500)).toBe(0.5);
    expect(targetAt(spike, 5000)).toBe(1); // a boundary: the stage that ends there
    expect(targetAt(spike, 6000)).toBe(8.5);
    expect(targetAt(spike, 7000)).toBe(16);
    expect(targetAt(spike, 13_000)).toBe(8.5);
    expect(targetAt(spike, 14_000)).toBe(1);
    expect(targetAt(spike, 99_000)).toBe(1);
  });

  it('rounds half up to agents', () => {
    expect(agentsAt(spike, 2499)).toBe(0);
    expect(agentsAt(spike, 2500)).toBe(1);
    expect(agentsAt(spike, 6000)).toBe(9);
    expect(agentsAt(spike, 12_000)).toBe(16);
  });

  it('a 0 ms stage jumps, at the start or later', () => {
    expect(targetAt([s(0, 50), s(1000, 50)], 0)).toBe(50);
    expect(agentChanges([s(0, 50), s(1000, 50)])).toEqual([{ atMs: 0, agents: 50 }]);
    expect(agentChanges([s(0, 2), s(1000, 2), s(0, 5), s(1000, 5)])).toEqual([
      { atMs: 0, agents: 2 },
      { atMs: 1000, agents: 5 },
    ]);
  });

  it('lists the exact times the agents change, each agrees with agentsAt, and nothing in between', () => {
    const changes = agentChanges(spike);
    expect(changes.slice(0, 3)).toEqual([
      { atMs: 0, agents: 0 },
      { atMs: 2500, agents: 1 },
      { atMs: 5000 + (0.5 / 15) * 2000, agents: 2 },
    ]);
    expect(changes.map((c) => c.agents)).toEqual([
      0,
      ...Array.from({ length: 16 }, (_, i) => i + 1),
      ...Array.from({ length: 15 }, (_, i) => 15 - i),
    ]);
    for (const [i, c] of changes.entries()) {
      const next = changes[i + 1]?.atMs ?? 20_000;
      // ramping down, the target reaches k + 0.5 (still k + 1 rounded) at the change: look just after it
      for (const at of [c.atMs + 0.001, (c.atMs + next) / 2, next - 0.001])
        expect(agentsAt(spike, at), `at ${at}`).toBe(c.agents);
    }
  });

  it('averages the agents over a second as a ramp moves within it', () => {
    const changes = agentChanges([s(1000, 2), s(1000, 2), s(1000, 0)]);
    expect(changes).toEqual([
      { atMs: 0, agents: 0 },
      { atMs: 250, agents: 1 },
      { atMs: 750, agents: 2 },
      { atMs: 2250, agents: 1 },
      { atMs: 2750, agents: 0 },
    ]);
    expect([0, 1000, 2000].map((at) => meanAgents(changes, at, at + 1000))).toEqual([1, 2, 1]);
  });

  it('spaces arrivals so each second gets the calls its rate holds, ramps included', () => {
    const times = [...arrivals([s(1000, 10), s(1000, 10), s(1000, 0)])];
    const perSecond = [0, 1, 2].map((i) => times.filter((t) => t >= i * 1000 && t < (i + 1) * 1000).length);
    expect(perSecond).toEqual([5, 10, 5]);
    expect(times).toHaveLength(20);
    // a steady rate: evenly spaced, half an interval in
    expect([...arrivals([s(1000, 4)])]).toHaveLength(2);
    expect([...arrivals([s(0, 4), s(1000, 4)])]).toEqual([125, 375, 625, 875]);
    // sorted, inside the stages
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.max(...times)).toBeLessThan(3000);
  });
});

/** Agents whose calls take `ms` on the fake clock; each call's start is logged per agent. */
function sleepers(clock: FakeClock, ms: number) {
  const started: number[][] = [];
  const makeAgent = async (agent: number): Promise<AgentLoop> => {
    started[agent] = [];
    return {
      async next() {
        started[agent]!.push(clock.now());
        await clock.sleep(ms);
        return { op: 'get', ok: true };
      },
      async close() {},
    };
  };
  return { makeAgent, started };
}

describe('staged steps (fake clock)', () => {
  it('closed loop: agents start and stop as the target moves, and each second says how many were active', async () => {
    const clock = new FakeClock();
    const { makeAgent, started } = sleepers(clock, 100);
    const ticks: SecondTick[] = [];
    const m = await clock.run(
      runStep({
        agents: 2,
        mode: 'closed',
        stages: [s(1000, 2), s(1000, 2), s(1000, 0)],
        warmupMs: 0,
        durationMs: 0,
        makeAgent,
        clock,
        probe: nullProbe,
        onSecond: (t) => ticks.push(t),
      }),
    );
    expect(m.durationMs).toBe(3000);
    // agent 0 from 250 ms to 2750 ms, agent 1 from 750 ms to 2250 ms, 100 ms a call
    expect(started[0]![0]).toBe(250);
    expect(started[0]!.at(-1)).toBe(2650);
    expect(started[1]![0]).toBe(750);
    expect(started[1]!.at(-1)).toBe(2150);
    expect(m.calls).toBe(25 + 15);
    expect(m.intervals.map((i) => i.agents)).toEqual([1, 2, 1]);
    expect(m.intervals.map((i) => i.calls)).toEqual([9, 20, 11]);
    expect(ticks.map((t) => t.agents)).toEqual([0, 2, 2, 0]);
  });

  it('closed loop: the warm-up holds the level the stages start at', async () => {
    const clock = new FakeClock();
    const { makeAgent, started } = sleepers(clock, 100);
    const m = await clock.run(
      runStep({
        agents: 3,
        mode: 'closed',
        stages: [s(0, 2), s(1000, 2)],
        warmupMs: 500,
        durationMs: 0,
        makeAgent,
        clock,
        probe: nullProbe,
      }),
    );
    expect(started[0]![0]).toBe(0);
    expect(started[1]![0]).toBe(0);
    expect(started[2]).toEqual([]);
    expect(m.calls).toBe(20);
    expect(m.intervals.map((i) => i.agents)).toEqual([2]);
  });

  it('open loop: calls arrive at the staged rate, each second records what was intended', async () => {
    const clock = new FakeClock();
    const { makeAgent } = sleepers(clock, 10);
    const ticks: SecondTick[] = [];
    const m = await clock.run(
      runStep({
        agents: 2,
        mode: 'open',
        stages: [s(1000, 10), s(1000, 10), s(1000, 0)],
        warmupMs: 0,
        durationMs: 0,
        makeAgent,
        clock,
        probe: nullProbe,
        onSecond: (t) => ticks.push(t),
      }),
    );
    expect(m.mode).toBe('open');
    expect(m.rate).toBe(10);
    expect(m.openLoop).toEqual({ intended: 20, late: 0, dropped: 0 });
    expect(m.intervals.map((i) => i.rate)).toEqual([5, 10, 5]);
    expect(m.intervals.map((i) => i.calls)).toEqual([5, 10, 5]);
    expect(ticks.map((t) => t.rate)).toEqual([0, 10, 10, 0]);
  });

  it("makes the tick at the window's end when its timer fires after the agents stopped", async () => {
    // Timers late under load: the ticks' long sleeps end 5 ms late, the agents' 100 ms calls on time.
    const fake = new FakeClock();
    const clock = { now: () => fake.now(), sleep: (ms: number) => fake.sleep(ms >= 500 ? ms + 5 : ms) };
    const { makeAgent } = sleepers(fake, 100);
    const ticks: SecondTick[] = [];
    const m = await fake.run(
      runStep({
        agents: 1,
        mode: 'closed',
        warmupMs: 0,
        durationMs: 2000,
        makeAgent,
        clock,
        probe: nullProbe,
        onSecond: (t) => ticks.push(t),
      }),
    );
    expect(m.calls).toBe(20);
    expect(ticks.map((t) => [t.atMs, t.calls])).toEqual([
      [0, 0],
      [1000, 10],
      [2000, 20],
    ]);
  });

  it('refuses stages that need more agents than are connected, or never rise', async () => {
    const clock = new FakeClock();
    const { makeAgent } = sleepers(clock, 10);
    const base = { mode: 'closed' as const, warmupMs: 0, durationMs: 0, makeAgent, clock, probe: nullProbe };
    await expect(runStep({ ...base, agents: 2, stages: [s(1000, 3)] })).rejects.toThrow(
      /reach 3 agents, more than the 2 connected/,
    );
    await expect(runStep({ ...base, agents: 2, stages: [s(1000, 0)] })).rejects.toThrow(/never rise above 0/);
  });
});
