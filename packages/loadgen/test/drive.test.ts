import { goodput, throughput } from '@mcp-db-bench/contract';
import { decode, encode, merge, newHistogram, record, summarize, summary } from '@mcp-db-bench/report';
import { describe, expect, it } from 'vitest';
import { McpCallError } from '../src/clients/client.js';
import { FakeClock } from '../src/drive/clock.js';
import { measureCalls } from '../src/drive/measure-calls.js';
import { type ClientProbe, nullProbe, processProbe } from '../src/drive/probe.js';
import {
  type AgentLoop,
  errorKindOf,
  type RunStepOptions,
  runStep,
  type StepMeasurement,
} from '../src/drive/run-step.js';

/** What a scripted call does: how long the "server" takes, and how it ends. */
interface Script {
  ms: number;
  op?: string;
  fail?: string;
  throws?: unknown;
  /** sessions the agent's client started again during the call */
  reinit?: number;
}

interface CallInfo {
  agent: number;
  /** this agent's call number, from 0 */
  seq: number;
  /** every agent's call number, from 0 */
  global: number;
  startedAt: number;
}

/** Agents whose calls sleep on the fake clock for scripted times and return scripted outcomes. */
function scripted(clock: FakeClock, script: (call: CallInfo) => Script) {
  const log = { created: [] as number[], closed: 0, calls: [] as Array<CallInfo & Script> };
  const makeAgent = async (agent: number): Promise<AgentLoop> => {
    log.created.push(agent);
    let seq = 0;
    let reinitialized = 0;
    return {
      get reinitialized() {
        return reinitialized;
      },
      async next() {
        const call = { agent, seq: seq++, global: log.calls.length, startedAt: clock.now() };
        const s = script(call);
        log.calls.push({ ...call, ...s });
        await clock.sleep(s.ms);
        reinitialized += s.reinit ?? 0;
        if (s.throws !== undefined) throw s.throws;
        const op = s.op ?? 'get';
        return s.fail === undefined ? { op, ok: true } : { op, ok: false, errorKind: s.fail };
      },
      async close() {
        log.closed++;
      },
    };
  };
  return { makeAgent, log };
}

function run(clock: FakeClock, options: Omit<RunStepOptions, 'clock'>): Promise<StepMeasurement> {
  return clock.run(runStep({ probe: nullProbe, ...options, clock }));
}

function histogramOfMs(values: number[]) {
  const h = newHistogram();
  for (const v of values) record(h, v * 1000);
  return h;
}

/** Within HdrHistogram's 3-significant-digit precision. */
function near(actual: number, expected: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected / 1000 + 1);
}

describe('FakeClock', () => {
  it('wakes sleepers in due order, ties in creation order, and only when time passes them', async () => {
    const clock = new FakeClock();
    const woke: string[] = [];
    void clock.sleep(20).then(() => woke.push(`b@${clock.now()}`));
    void clock.sleep(10).then(() => woke.push(`a@${clock.now()}`));
    void clock.sleep(20).then(() => woke.push(`c@${clock.now()}`));
    await clock.advance(15);
    expect(woke).toEqual(['a@10']);
    expect(clock.now()).toBe(15);
    await clock.advance(5);
    expect(woke).toEqual(['a@10', 'b@20', 'c@20']);
    expect(clock.pending).toBe(0);
  });

  it('refuses to run work that waits on something it does not control', async () => {
    const clock = new FakeClock();
    await expect(clock.run(new Promise(() => {}))).rejects.toThrow(/nothing sleeps/);
  });
});

describe('runStep, closed loop', () => {
  it('reads percentiles from the recorded distribution (990 calls of 1 ms, 10 of 100 ms)', async () => {
    const clock = new FakeClock();
    // cycles of 99 fast calls and 1 slow one: 199 ms each, ten cycles fill 1990 ms exactly
    const { makeAgent } = scripted(clock, ({ seq }) => ({ ms: seq % 100 === 99 ? 100 : 1 }));
    const m = await run(clock, { agents: 1, mode: 'closed', warmupMs: 0, durationMs: 1990, makeAgent });
    expect(m.calls).toBe(1000);
    const s = summarize(m.all.histogram);
    expect(s.count).toBe(1000);
    near(s.p50, 1000);
    near(s.p99, 1000);
    near(s.p999, 100_000);
    near(s.max, 100_000);
    expect(m.operations.get!.histogram).toBe(m.all.histogram);
  });

  it('excludes calls that start during warm-up, even when they finish inside the window', async () => {
    const clock = new FakeClock();
    const { makeAgent, log } = scripted(clock, ({ startedAt }) => ({ ms: 30, op: startedAt < 100 ? 'warm' : 'get' }));
    const m = await run(clock, { agents: 1, mode: 'closed', warmupMs: 100, durationMs: 1000, makeAgent });
    // started at 0, 30, 60, 90 (the last ends at 120, inside the window): warm-up, not counted
    expect(log.calls.filter((c) => c.startedAt < 100)).toHaveLength(4);
    // counted: started at 120, 150, ..., 1080
    expect(m.calls).toBe(33);
    expect(log.calls).toHaveLength(37);
    expect(Object.keys(m.operations)).toEqual(['get']);
    expect(m.durationMs).toBe(1000);
  });

  it('counts failures by kind, never as latency and never as calls', async () => {
    const clock = new FakeClock();
    // a cycle of five calls (130 ms): ok 10, timeout 50, ok 10, thrown http_503 50, ok 10
    const { makeAgent } = scripted(clock, ({ seq }): Script => {
      if (seq % 5 === 1) return { ms: 50, fail: 'timeout' };
      if (seq % 5 === 3) return { ms: 50, throws: new McpCallError('http_503', 'Service Unavailable') };
      return { ms: 10 };
    });
    const m = await run(clock, { agents: 1, mode: 'closed', warmupMs: 0, durationMs: 1000, makeAgent });
    // 7 whole cycles end at 910; then ok@910, timeout@920, ok@970, http_503@980 (ends 1030)
    expect(m.calls).toBe(23);
    expect(m.errors).toEqual({ http_503: 8, timeout: 8 });
    const s = summarize(m.all.histogram);
    expect(s.count).toBe(23);
    near(s.max, 10_000); // the 50 ms failures are nowhere in the latencies
    expect(m.intervals.reduce((n, i) => n + i.errors, 0)).toBe(16);
    expect(throughput(m)).toBe(39);
    expect(goodput(m)).toBe(23);
  });

  it('counts the re-initializations made during the measured operations, failed ones too, none of the warm-up', async () => {
    const clock = new FakeClock();
    const { makeAgent } = scripted(
      clock,
      ({ seq }): Script => ({
        ms: 100,
        reinit: seq % 3 === 0 ? 2 : 1,
        ...(seq % 2 ? { throws: new McpCallError('http_404', 'Session not found') } : {}),
      }),
    );
    const m = await run(clock, { agents: 1, mode: 'closed', warmupMs: 100, durationMs: 1000, makeAgent });
    // seq 0 is the warm-up; seq 1..10 are measured, of which 3, 6 and 9 re-initialized twice
    expect(m.calls + m.errors.http_404!).toBe(10);
    expect(m.reinitialized).toBe(13);
    // an agent that does not count them: none recorded
    const plain = await run(clock, {
      agents: 1,
      mode: 'closed',
      warmupMs: 0,
      durationMs: 300,
      makeAgent: async () => ({
        next: () => clock.sleep(100).then(() => ({ op: 'get', ok: true })),
        close: async () => {},
      }),
    });
    expect(plain.reinitialized).toBe(0);
  });

  it('files a thrown error without a kind as `exception`', async () => {
    const clock = new FakeClock();
    const { makeAgent } = scripted(clock, () => ({ ms: 100, throws: new Error('boom') }));
    const m = await run(clock, { agents: 1, mode: 'closed', warmupMs: 0, durationMs: 1000, makeAgent });
    expect(m.errors).toEqual({ exception: 10 });
    expect(m.calls).toBe(0);
    expect(m.all.count).toBe(0);
    expect(errorKindOf({ kind: 'network' })).toBe('network');
    expect(errorKindOf('a string')).toBe('exception');
  });

  it('with N agents makes N * duration / latency calls, and reports client health per call', async () => {
    const clock = new FakeClock();
    const { makeAgent } = scripted(clock, () => ({ ms: 10 }));
    const started: number[] = [];
    const probe: ClientProbe = {
      start: () => started.push(clock.now()),
      stop: () => ({ cpuUs: 30_000, eventLoopDelayP99Ms: 1.5, eventLoopDelayMaxMs: 4 }),
    };
    const m = await run(clock, { agents: 3, mode: 'closed', warmupMs: 100, durationMs: 1000, makeAgent, probe });
    expect(m.calls).toBe((3 * 1000) / 10);
    expect(m.mode).toBe('closed');
    expect(m.rate).toBeNull();
    expect(m.openLoop).toBeNull();
    expect(goodput(m)).toBe(300);
    expect(started).toEqual([100]); // the probe watches the measured window only
    // 30 ms of CPU over 300 calls, over a 1 s window (the last calls end exactly at 1100)
    expect(m.client).toEqual({
      cpuPerCallUs: 100,
      cpuUtilization: 0.03,
      eventLoopDelayP99Ms: 1.5,
      eventLoopDelayMaxMs: 4,
    });
  });

  it('attributes calls to the second of the window in which they completed', async () => {
    const clock = new FakeClock();
    // 100 ms calls until 1500, then 250 ms calls; the window is [500, 3500)
    const { makeAgent } = scripted(clock, ({ startedAt }) => ({ ms: startedAt < 1500 ? 100 : 250 }));
    const m = await run(clock, { agents: 1, mode: 'closed', warmupMs: 500, durationMs: 3000, makeAgent });
    expect(m.calls).toBe(18); // started 500..1400 (10) and 1500..3250 (8)
    const intervals = m.intervals.map((i) => ({
      atMs: i.atMs,
      calls: i.calls,
      errors: i.errors,
      s: summarize(i.histogram),
    }));
    expect(intervals.map(({ atMs, calls, errors }) => ({ atMs, calls, errors }))).toEqual([
      { atMs: 0, calls: 9, errors: 0 }, // completed 600..1400
      { atMs: 1000, calls: 4, errors: 0 }, // completed 1500 (100 ms), 1750, 2000, 2250
      { atMs: 2000, calls: 5, errors: 0 }, // completed 2500..3250, plus 3500 as the window closed
    ]);
    near(intervals[0]!.s.max, 100_000);
    near(intervals[1]!.s.min, 100_000);
    near(intervals[1]!.s.p50, 250_000);
    near(intervals[2]!.s.min, 250_000);
  });

  it('creates agents concurrently before the clock starts and closes them after', async () => {
    const clock = new FakeClock();
    const inner = scripted(clock, () => ({ ms: 10 }));
    const makeAgent = async (i: number) => {
      await clock.sleep(50); // slow session start: not part of the step
      return inner.makeAgent(i);
    };
    const m = await run(clock, { agents: 4, mode: 'closed', warmupMs: 0, durationMs: 100, makeAgent });
    expect(inner.log.created).toEqual([0, 1, 2, 3]);
    // all four were ready at 50 (concurrent creation), and the 100 ms window began there
    expect(new Set(inner.log.calls.filter((c) => c.seq === 0).map((c) => c.startedAt))).toEqual(new Set([50]));
    expect(m.calls).toBe(40);
    expect(inner.log.closed).toBe(4);
  });

  it('closes the agents that were made when another fails to start, and rethrows', async () => {
    const clock = new FakeClock();
    const inner = scripted(clock, () => ({ ms: 10 }));
    const makeAgent = async (i: number) => {
      if (i === 1) throw new McpCallError('network', 'connection refused');
      return inner.makeAgent(i);
    };
    await expect(run(clock, { agents: 3, mode: 'closed', warmupMs: 0, durationMs: 100, makeAgent })).rejects.toThrow(
      'connection refused',
    );
    expect(inner.log.closed).toBe(2);
    expect(inner.log.calls).toHaveLength(0);
  });

  it('ends the window early on abort; calls in flight still count', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const { makeAgent } = scripted(clock, ({ startedAt }) => {
      if (startedAt === 500) controller.abort();
      return { ms: 10 };
    });
    const m = await run(clock, {
      agents: 1,
      mode: 'closed',
      warmupMs: 0,
      durationMs: 1000,
      makeAgent,
      signal: controller.signal,
    });
    expect(m.durationMs).toBe(500);
    expect(m.calls).toBe(51); // started at 0..500
  });

  it('merges histograms from separate runs exactly like one recording of every value', async () => {
    const values: number[] = [];
    const runOnce = async (cycle: number[], agents: number) => {
      const clock = new FakeClock();
      const { makeAgent, log } = scripted(clock, ({ global }) => ({ ms: cycle[global % cycle.length]! }));
      const m = await run(clock, { agents, mode: 'closed', warmupMs: 0, durationMs: 2000, makeAgent });
      values.push(...log.calls.map((c) => c.ms)); // no warm-up: every call made is counted
      return m;
    };
    const a = await runOnce([1, 3, 7, 2.5], 2);
    const b = await runOnce([2, 50, 0.3], 3);
    const merged = merge([a.all.histogram, b.all.histogram]);
    const single = histogramOfMs(values);
    expect(merged.totalCount).toBe(a.calls + b.calls);
    expect(summary(merged)).toEqual(summary(single));
    expect(encode(merged)).toBe(encode(single));
  });
});

describe('runStep, open loop', () => {
  it('keeps the schedule when the target keeps up: nothing late, nothing dropped', async () => {
    const clock = new FakeClock();
    const { makeAgent, log } = scripted(clock, () => ({ ms: 15 }));
    const m = await run(clock, { agents: 2, mode: 'open', rate: 100, warmupMs: 100, durationMs: 1000, makeAgent });
    expect(m.rate).toBe(100);
    expect(m.openLoop).toEqual({ intended: 100, late: 0, dropped: 0 });
    expect(m.calls).toBe(100);
    expect(log.calls).toHaveLength(110); // 10 more intended during warm-up, made but not counted
    near(summarize(m.all.histogram).max, 15_000);
  });

  it('measures from the intended start through a stall, and counts late and dropped calls exactly', async () => {
    const clock = new FakeClock();
    // The server stalls from 100 to 305 ms: a call arriving then answers at 305; otherwise 2 ms.
    const { makeAgent } = scripted(clock, ({ startedAt }) => ({
      ms: startedAt >= 100 && startedAt < 305 ? 305 - startedAt : 2,
    }));
    const m = await run(clock, { agents: 1, mode: 'open', rate: 100, warmupMs: 0, durationMs: 1000, makeAgent });
    // Intended every 10 ms, 0..990. The call intended at 100 holds the only agent until 305.
    // 110..140 queue (the bound is 1 agent * 4); 150..300 find the queue full: 16 dropped.
    // At 305 the queue drains back to back: 110 runs 305-307, 120 307-309, 130 309-311; 310
    // arrives and queues behind 140 (311-313), then runs 313-315, 3 ms late; 320 is on time.
    expect(m.openLoop).toEqual({ intended: 100, late: 5, dropped: 16 });
    expect(m.calls).toBe(84);
    expect(m.errors).toEqual({});
    // Latencies from the intended start: the waiting is in them (a closed loop would have
    // reported one slow call and 83 fast ones).
    const expected = histogramOfMs([...Array(78).fill(2), 205, 307 - 110, 309 - 120, 311 - 130, 313 - 140, 315 - 310]);
    expect(m.all.histogram).toBe(encode(expected));
    expect(summary(decode(m.all.histogram))).toEqual(summary(expected));
    expect(m.intervals).toHaveLength(1);
    expect(m.intervals[0]!.calls).toBe(84);
  });

  it('rejects an open loop without a rate', async () => {
    const clock = new FakeClock();
    const { makeAgent } = scripted(clock, () => ({ ms: 1 }));
    await expect(run(clock, { agents: 1, mode: 'open', warmupMs: 0, durationMs: 10, makeAgent })).rejects.toThrow(
      /rate/,
    );
  });
});

describe('processProbe', () => {
  it('sees CPU burnt and a blocked event loop', async () => {
    const probe = processProbe();
    probe.start();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const until = performance.now() + 60;
    while (performance.now() < until) {
      // block the loop: a load generator busy like this reports its own delay, not the server's
    }
    await new Promise((resolve) => setTimeout(resolve, 30));
    const reading = probe.stop();
    expect(reading.cpuUs).toBeGreaterThan(10_000); // 60 ms of busy wall time, less if the CPU is shared
    expect(reading.eventLoopDelayMaxMs).toBeGreaterThan(20);
    expect(reading.eventLoopDelayP99Ms).toBeLessThanOrEqual(reading.eventLoopDelayMaxMs);
  });
});

describe('measureCalls', () => {
  it('times each call alone after unmeasured warm-up calls; failures are counted, not timed', async () => {
    const clock = new FakeClock();
    const script = [500, 500, 5, 5, 10, -1];
    let i = 0;
    const call = async () => {
      const took = script[i++]!;
      await clock.sleep(Math.abs(took));
      if (took < 0) throw new McpCallError('timeout', 'too slow');
    };
    const out = await clock.run(measureCalls({ count: 4, warmup: 2, call, clock }));
    expect(out.count).toBe(3);
    expect(out.errors).toEqual({ timeout: 1 });
    const s = summarize(out.histogram);
    near(s.min, 5000);
    near(s.max, 10_000);
  });
});
