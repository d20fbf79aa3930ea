import { decode } from '@mcp-db-bench/report';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../src/drive/clock.js';
import { nullProbe } from '../src/drive/probe.js';
import { type AgentLoop, runStep } from '../src/drive/run-step.js';
import { scaledThink } from '../src/replay/agent.js';
import { checkReplayable, parseTrace, ReplayError, tracedTools } from '../src/replay/trace.js';

const header = (values = 'shape') =>
  JSON.stringify({ type: 'trace', version: 1, startedAt: '2026-01-01T00:00:00Z', target: 'x', values });
const session = (s: string, protocolVersion: string | null = '2025-11-25') =>
  JSON.stringify({ type: 'session', session: s, at: 0, protocolVersion, client: null });
const request = (s: string, method: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'request',
    session: s,
    at: 1,
    method,
    thinkMs: 5,
    durationMs: 1,
    bytes: { request: 1, response: 1 },
    ...extra,
  });

describe('parseTrace', () => {
  it('groups requests by session, in the order the sessions began, leaving out sessions without one', () => {
    const trace = parseTrace(
      [
        header(),
        session('s1'),
        session('s2', null),
        session('s3'),
        request('s2', 'tools/call', { tool: 'get', arguments: { table: 't', key: '<integer>' } }),
        request('s1', 'initialize'),
        request('s1', 'tools/call', { tool: 'query', arguments: {} }),
        JSON.stringify({ type: 'end', session: 's1', at: 3 }),
        '',
      ].join('\n'),
    );
    expect(trace.sessions.map((s) => [s.label, s.protocolVersion, s.requests.map((r) => r.tool ?? r.method)])).toEqual([
      ['s1', '2025-11-25', ['initialize', 'query']],
      ['s2', null, ['get']],
    ]);
    expect(tracedTools(trace)).toEqual(['query', 'get']);
  });

  it('names the line that is not a trace line, and refuses a trace with nothing to replay', () => {
    expect(() => parseTrace(`${header()}\n{"type":"request"}`, 't.jsonl')).toThrow(
      /t\.jsonl, line 2: not a trace line/,
    );
    expect(() => parseTrace(`${header()}\nnot json`)).toThrow(/line 2: not JSON/);
    expect(() => parseTrace(session('s1'))).toThrow(/first line must be the trace header/);
    expect(() => parseTrace(`${header()}\n${session('s1')}`)).toThrow(expect.objectContaining({ code: 'empty_trace' }));
  });
});

describe('checkReplayable', () => {
  const tools = [
    { name: 'get', inputSchema: { type: 'object', required: ['table', 'key'] } },
    { name: 'list_tables', inputSchema: { type: 'object' } },
  ];

  it('lists every tool the trace calls that the target does not offer', () => {
    const trace = parseTrace(
      [
        header(),
        session('s1'),
        request('s1', 'tools/call', { tool: 'get', arguments: {} }),
        request('s1', 'tools/call', { tool: 'query', arguments: {} }),
        request('s1', 'tools/call', { tool: 'aggregate', arguments: {} }),
      ].join('\n'),
    );
    let error: unknown;
    try {
      checkReplayable(trace, tools, 'srv');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReplayError);
    expect((error as ReplayError).code).toBe('missing_tools');
    expect((error as Error).message).toMatch(/srv does not offer these tools the trace calls: query, aggregate/);
  });

  it('refuses dropped arguments for a tool that needs some, and takes them for one that needs none', () => {
    const dropped = (tool: string) =>
      parseTrace([header('drop'), session('s1'), request('s1', 'tools/call', { tool })].join('\n'));
    expect(() => checkReplayable(dropped('get'), tools, 'srv')).toThrow(
      /recorded with --values drop: it has no arguments for get \(needs table, key\)/,
    );
    expect(() => checkReplayable(dropped('list_tables'), tools, 'srv')).not.toThrow();
  });
});

describe('think time', () => {
  it('scales the recorded think time: 1x as recorded, 0.5x half, 0 none', () => {
    expect(scaledThink(120, 1)).toBe(120);
    expect(scaledThink(120, 0.5)).toBe(60);
    expect(scaledThink(120, 0)).toBe(0);
  });

  /** An agent whose calls take 10 ms after a pause of `thinkMs`. */
  const thinking = (clock: FakeClock, thinkMs: number) => async (): Promise<AgentLoop> => ({
    pause: () => thinkMs,
    async next() {
      await clock.sleep(10);
      return { op: 'get', ok: true };
    },
    async close() {},
  });

  it('is waited before each call, never timed as its latency, and split out in sessionTime', async () => {
    const clock = new FakeClock();
    const step = await clock.run(
      runStep({
        agents: 2,
        mode: 'closed',
        warmupMs: 0,
        durationMs: 200,
        probe: nullProbe,
        clock,
        makeAgent: thinking(clock, 30),
      }),
    );
    // each agent: 30 ms think then a 10 ms call, five times in 200 ms
    expect(step.calls).toBe(10);
    expect(decode(step.all.histogram).maxValue).toBeLessThan(10_100);
    expect(step.sessionTime).toEqual({ thinkMs: 300, callMs: 100 });
  });

  it('at 0 the calls go back to back, the split still said', async () => {
    const clock = new FakeClock();
    const step = await clock.run(
      runStep({
        agents: 1,
        mode: 'closed',
        warmupMs: 0,
        durationMs: 100,
        probe: nullProbe,
        clock,
        makeAgent: thinking(clock, 0),
      }),
    );
    expect(step.calls).toBe(10);
    expect(step.sessionTime).toEqual({ thinkMs: 0, callMs: 100 });
  });
});
