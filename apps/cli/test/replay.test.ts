import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ResultFile, shapeOf, type TraceRequest } from '@mcp-db-bench/contract';
import { Dataset, generateRows, rowCounts, TABLES } from '@mcp-db-bench/dataset';
import { createClient } from '@mcp-db-bench/loadgen';
import { replayLine } from '@mcp-db-bench/report';
import { SERVER_BIN } from '@mcp-db-bench/server';
import { freshDatabase } from '@mcp-db-bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeySpace, placeholderOf, shapeFiller } from '../src/replay/fill.js';
import { type ServerProcess, startServer } from '../src/serving/server-process.js';
import { runCli } from './support/cli.js';
import { readTraceLines, requestsOf, startRecorder } from './support/recorder.js';

/**
 * `run --replay`: sessions recorded from hosts we did not write (the official Python client and
 * the TypeScript SDK client) through the record proxy against our server, replayed through a
 * second record proxy, whose trace is what the server was sent: the same tools with the same
 * arguments in the same order, and the same answers (rows, errors) where the values were kept.
 */
const run = promisify(execFile);
const PYTHON = fileURLToPath(new URL('../../../.tools/py/bin/python', import.meta.url));
const HOST = fileURLToPath(new URL('./clients/python_host.py', import.meta.url));
const haveVenv = existsSync(PYTHON);
if (!haveVenv) {
  if (process.env.CI) throw new Error(`CI needs the Python MCP client: ${PYTHON} is missing (see .ci/run)`);
  console.warn(`replay.test.ts: the Python host is skipped: no venv at ${PYTHON} (run .ci/run)`);
}

const SCALE = '0.001';
const SEED = '7';
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-replay-'));
let server: ServerProcess;

beforeAll(async () => {
  // seeded by run itself, as a replay with --db would: the fill below must agree with these rows
  const seeded = await runCli(['seed', '--db', `sqlite:${join(dir, 'bench.db')}`, '--scale', SCALE, '--seed', SEED], {
    timeoutMs: 60_000,
  });
  expect(seeded.code, seeded.stderr).toBe(0);
  server = await startServer(`sqlite:${join(dir, 'bench.db')}`, ['--workers', '1']);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The TypeScript SDK client as a host: tools/list, then calls with a pause between them. */
async function sdkHost(url: string): Promise<void> {
  const client = createClient(
    { kind: 'http', url },
    { client: 'sdk', protocol: 'legacy', clientInfo: { name: 'sdk-host', version: '1' } },
  );
  try {
    await client.open();
    await client.listTools();
    for (const [tool, args] of [
      ['get', { table: 'orders', key: 5 }],
      ['query', { table: 'order_items', filter: { column: 'order_id', op: 'in', value: [5, 6] }, limit: 10 }],
      ['get', { table: 'no_such_table', key: 1 }],
    ] as const) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await client.callTool(tool, args);
    }
  } finally {
    await client.close();
  }
}

async function pythonHost(url: string, era: 'legacy' | 'modern'): Promise<void> {
  await run(PYTHON, [HOST, '--era', era, '--url', url], { timeout: 60_000 });
}

/** Records what `drive` does against our server, with `values`; the trace's file. */
async function record(
  name: string,
  values: string,
  drive: (url: string) => Promise<void>,
  target = server.endpoint,
): Promise<string> {
  const file = join(dir, `${name}.jsonl`);
  const recorder = await startRecorder(['--target', target, '-o', file, '--values', values]);
  try {
    await drive(recorder.url);
  } finally {
    recorder.child.kill('SIGINT');
    await recorder.exited;
  }
  return file;
}

/** `run --replay` through a second recorder (values kept): the result, and what the server was sent. */
async function replay(
  trace: string,
  args: string[],
  target = server.endpoint,
): Promise<{ result: ResultFile; sent: TraceRequest[] }> {
  let result: ResultFile | undefined;
  const file = await record(
    `replayed-${Date.now()}`,
    'keep',
    async (url) => {
      const out = await runCli(
        ['run', '--replay', trace, '--target', url, '--warmup', '1ms', '--format', 'json', ...args],
        { timeoutMs: 90_000 },
      );
      expect(out.code, out.stderr).toBe(0);
      result = JSON.parse(out.stdout) as ResultFile;
    },
    target,
  );
  const lines = readTraceLines(file);
  // s1 is the check before the steps (tools/list): the replay's sessions follow it
  const sent = requestsOf(lines).filter((r) => r.session !== 's1');
  return { result: result!, sent };
}

/** What identifies a request: its method, tool and arguments. */
const call = (r: TraceRequest) => ({ method: r.method, tool: r.tool, arguments: r.arguments });

describe('run --replay', () => {
  it('replays hosts we did not write: the same requests in the same order, with the same answers', async () => {
    const trace = await record('hosts', 'keep', async (url) => {
      if (haveVenv) {
        await pythonHost(url, 'legacy');
        await pythonHost(url, 'modern');
      }
      await sdkHost(url);
    });
    const recorded = requestsOf(readTraceLines(trace));
    const sessions = [...new Set(recorded.map((r) => r.session))];
    expect(sessions).toHaveLength(haveVenv ? 3 : 1);
    // one agent replays the sessions in turn (s1, s2, s3, s1, ...), with no think time, until the step ends
    const { result, sent } = await replay(trace, ['--agents', '1', '--duration', '3s', '--think', '0']);
    const cycle = sessions.flatMap((s) => recorded.filter((r) => r.session === s));
    expect(sent.length).toBeGreaterThan(cycle.length);
    const expected = sent.map((_, i) => cycle[i % cycle.length]!);
    expect(sent.map(call)).toEqual(expected.map(call));
    // the same answers: rows and errors of every call, the refused ones included
    const answers = (rs: TraceRequest[]) => rs.map((r) => [r.tool ?? r.method, r.rows, r.error]);
    expect(answers(sent)).toEqual(answers(expected));
    if (haveVenv) {
      expect(recorded.filter((r) => r.method === 'initialize').length).toBe(2);
      expect(recorded.some((r) => r.method === 'server/discover')).toBe(true);
      expect(recorded.find((r) => r.error === 'tool:unknown_column')).toBeDefined();
    }

    expect(result.config.replay).toMatchObject({ sessions: sessions.length, requests: cycle.length, think: 0 });
    const [step] = result.steps;
    expect(step).toMatchObject({ workload: 'replay', agents: 1 });
    expect(Object.keys(step!.operations)).toEqual(expect.arrayContaining(['get', 'query', 'initialize', 'tools/list']));
    expect(step!.sessionTime!.thinkMs).toBe(0);
    expect(step!.sessionTime!.callMs).toBeGreaterThan(0);
  }, 180_000);

  it('fills shaped values from the dataset, so keys and filters hit real rows', async () => {
    const trace = await record('shaped', 'shape', sdkHost);
    const recorded = requestsOf(readTraceLines(trace)).filter((r) => r.method === 'tools/call');
    const { result, sent } = await replay(trace, [
      '--agents',
      '2',
      '--duration',
      '2s',
      '--think',
      '0.5x',
      '--scale',
      SCALE,
      '--seed',
      SEED,
    ]);
    const calls = sent.filter((r) => r.method === 'tools/call');
    expect(calls.length).toBeGreaterThanOrEqual(recorded.length);
    // two agents at once: each replayed session (a session of its own at the server) in the recorded order
    const inSession = (c: TraceRequest) => calls.filter((x) => x.session === c.session).indexOf(c);
    for (const c of calls) {
      const original = recorded[inSession(c)]!;
      expect(c.tool).toBe(original.tool);
      // the values are new, the shape is the recorded one
      expect(shapeOf(c.arguments)).toEqual(original.arguments);
      if (original.error) expect(c.error).toBe(original.error);
      else expect(c.rows, JSON.stringify(c.arguments)).toBeGreaterThan(0);
    }
    expect(new Set(calls.map((c) => JSON.stringify(c.arguments))).size).toBeGreaterThan(recorded.length);
    expect(result.steps[0]!.sessionTime!.thinkMs).toBeGreaterThan(0);
  }, 120_000);

  it('against our server on --db, seeded as run seeds it', async () => {
    const trace = await record('db', 'shape', sdkHost);
    const out = await runCli(
      [
        'run',
        '--full',
        '--replay',
        trace,
        '--db',
        `sqlite:${join(dir, 'own.db')}`,
        '--scale',
        SCALE,
        '--indexes',
        'optimized',
        '--agents',
        '1,3',
        '--duration',
        '1s',
        '--warmup',
        '1ms',
      ],
      { timeoutMs: 120_000 },
    );
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/seeded \d{1,3}(,\d{3})* rows/);
    expect(out.stdout).toMatch(/Replay: latency per method and tool/);
    expect(out.stdout).toMatch(/Replay: where the session time went/);
    expect(out.stdout).toMatch(/server \+ network/);
    expect(out.stdout).toMatch(/replayed db\.jsonl: 1 session\(s\)/);
  }, 150_000);

  it.skipIf(!process.env.PG_URL)(
    'against our server on PostgreSQL',
    async () => {
      const trace = await record('pg', 'shape', sdkHost);
      const url = await freshDatabase({ engine: 'postgres', baseUrl: process.env.PG_URL! }, 'bench_replay');
      const out = await runCli(
        ['run', '--replay', trace, '--db', url, '--scale', SCALE, '--indexes', 'optimized'].concat([
          '--agents',
          '2',
          '--duration',
          '1s',
          '--warmup',
          '1ms',
          '--format',
          'json',
        ]),
        { timeoutMs: 120_000 },
      );
      expect(out.code, out.stderr).toBe(0);
      const step = (JSON.parse(out.stdout) as ResultFile).steps[0]!;
      expect(step.errors).toEqual({ 'tool:unknown_table': expect.any(Number) });
      expect(step.operations.get!.count).toBeGreaterThan(0);
    },
    150_000,
  );

  it("counts the hosts' GET streams, which it does not replay", async () => {
    const trace = await record('streams', 'keep', async (url) => {
      await sdkHost(url);
      // a host asking for the server-to-client stream: ours offers none (405)
      const res = await fetch(url, { headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      await res.text();
    });
    // the SDK client asks for one on its session too, after initialize
    const streams = readTraceLines(trace).filter((l) => l.type === 'stream');
    expect(streams.map((l) => l.session)).toEqual(['s1', 's2']);
    for (const line of streams)
      expect(line).toMatchObject({ status: 405, messages: 0, durationMs: expect.any(Number) });
    const { result } = await replay(trace, ['--agents', '1', '--duration', '1s', '--think', '0']);
    expect(result.config.replay).toMatchObject({ sessions: 1, streams: 2 });
    expect(replayLine(result.config.replay!)).toMatch(/; 2 GET stream\(s\) not replayed$/);
  }, 90_000);

  it('refuses a target without the tools the trace calls, naming them', async () => {
    const file = join(dir, 'foreign.jsonl');
    const line = (o: object) => JSON.stringify(o);
    writeFileSync(
      file,
      [
        line({ type: 'trace', version: 1, startedAt: '2026-01-01T00:00:00Z', target: 'elsewhere', values: 'keep' }),
        line({ type: 'session', session: 's1', at: 0, protocolVersion: null, client: null }),
        ...['run_report', 'get', 'send_mail'].map((tool) =>
          line({
            type: 'request',
            session: 's1',
            at: 1,
            method: 'tools/call',
            tool,
            arguments: {},
            thinkMs: 0,
            durationMs: 1,
            bytes: { request: 1, response: 1 },
          }),
        ),
      ].join('\n'),
    );
    const out = await runCli(['run', '--replay', file, '--target', server.endpoint, '--agents', '1'], {
      timeoutMs: 60_000,
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/does not offer these tools the trace calls: run_report, send_mail/);
    const refused = await runCli(['run', '--replay', file, '--workloads', 'point-read'], { timeoutMs: 30_000 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--replay cannot be used with --workloads/);
  }, 90_000);
});

describe('run --replay calls custom tools', () => {
  it("a config file's custom tool, served by our server, is called by the benchmark as the trace says", async () => {
    const config = join(dir, 'custom.yaml');
    writeFileSync(
      config,
      [
        'tools:',
        '  customer_orders:',
        "    description: A customer's latest orders.",
        '    sql: select id, total from orders where customer_id = :customer_id order by id desc limit 5',
        '    parameters:',
        '      customer_id: { type: integer }',
        '',
      ].join('\n'),
    );
    const custom = await startServer(`sqlite:${join(dir, 'bench.db')}`, ['--workers', '1', '--config', config]);
    try {
      const file = join(dir, 'custom.jsonl');
      const line = (o: object) => JSON.stringify(o);
      writeFileSync(
        file,
        [
          line({ type: 'trace', version: 1, startedAt: '2026-01-01T00:00:00Z', target: 'ours', values: 'keep' }),
          line({ type: 'session', session: 's1', at: 0, protocolVersion: null, client: null }),
          ...[1, 2, 3].map((customer) =>
            line({
              type: 'request',
              session: 's1',
              at: customer,
              method: 'tools/call',
              tool: 'customer_orders',
              arguments: { customer_id: customer },
              thinkMs: 0,
              durationMs: 1,
              bytes: { request: 1, response: 1 },
            }),
          ),
        ].join('\n'),
      );
      const out = await runCli(
        ['run', '--replay', file, '--target', custom.endpoint, '--agents', '1', '--duration', '1s'].concat([
          '--warmup',
          '1ms',
          '--format',
          'json',
        ]),
        { timeoutMs: 60_000 },
      );
      expect(out.code, out.stderr).toBe(0);
      const result = JSON.parse(out.stdout) as ResultFile;
      const [step] = result.steps;
      expect(step!.errors).toEqual({});
      const called = Object.entries(step!.operations).filter(([name]) => name.includes('customer_orders'));
      expect(called).toHaveLength(1);
      expect(called[0]![1].count).toBeGreaterThan(3);
    } finally {
      await custom.stop();
    }
  }, 90_000);
});

describe('shape filling', () => {
  const counts = rowCounts(0.001);
  const dataset = new Dataset({ seed: 7, counts });
  const rowOf = (table: string, id: number) => {
    const t = TABLES.find((x) => x.name === table)!;
    let row: unknown[] = [];
    generateRows(t, dataset, id, id, (r) => {
      row = r;
    });
    return Object.fromEntries(t.columns.map((c, i) => [c.name, row[i]]));
  };
  const shaped = (args: unknown, rows?: number): TraceRequest => ({
    type: 'request',
    session: 's1',
    at: 0,
    method: 'tools/call',
    tool: 'query',
    arguments: args,
    thinkMs: 0,
    bytes: { request: 0, response: 0 },
    ...(rows === undefined ? {} : { rows }),
  });
  const filler = () => shapeFiller({ scale: 0.001, seed: 7, agent: 0 });

  it('reads placeholders as shapeOf writes them', () => {
    expect(placeholderOf(shapeOf('abc'))).toEqual({ type: 'string', length: 3 });
    expect(placeholderOf(shapeOf(3))).toEqual({ type: 'integer' });
    expect(placeholderOf(shapeOf(2.5))).toEqual({ type: 'number' });
    expect(placeholderOf(shapeOf(true))).toEqual({ type: 'boolean' });
    expect(placeholderOf('orders')).toBeUndefined();
  });

  it("fills a key with a row's id and a filter's values with that row's values, keeping the tree", () => {
    const fill = filler();
    for (let i = 0; i < 20; i++) {
      const got = fill.fill(shaped({ table: 'orders', key: '<integer>' })) as { key: number };
      expect(got.key).toBeGreaterThanOrEqual(1);
      expect(got.key).toBeLessThanOrEqual(counts.orders!);
      const query = fill.fill(
        shaped(
          shapeOf({
            table: 'orders',
            filter:
              "status = 'paid' and customer_id = 3 and not (total between 1.5 and 9.5) or currency in ('EUR', 'USD')",
            limit: 3,
            cursor: 'abc',
          }),
          3,
        ),
      ) as { table: string; filter: { or: [{ and: unknown[] }, unknown] }; limit: number };
      expect(query.limit).toBe(3);
      expect(query).not.toHaveProperty('cursor');
      const [status, customer, not] = query.filter.or[0].and as [
        { column: string; value: string },
        { column: string; value: number },
        { not: { column: string; value: [number, number] } },
      ];
      const currency = query.filter.or[1] as { op: string; value: string[] };
      // one row holds its status, its customer and its currency (first in the list)
      const row = rowOf('orders', rows(dataset, 'orders', status.value, customer.value, currency.value[0]!));
      expect([row.status, row.customer_id]).toEqual([status.value, customer.value]);
      expect(currency).toMatchObject({ op: 'in', value: [row.currency, expect.any(String)] });
      // under `not`, another row's total (a number, as the host sent one), between x and x
      const [low, high] = not.not.value;
      expect(not.not.column).toBe('total');
      expect(typeof low).toBe('number');
      expect(low).toBe(high);
    }
  });

  it('gives numbers where the host sent numbers, strings where it sent strings, and escapes a like pattern', () => {
    const fill = filler();
    const got = fill.fill(
      shaped({
        table: 'products',
        filter: {
          and: [
            { column: 'price', op: '>', value: '<number>' },
            { column: 'sku', op: 'like', value: '<string 12>' },
            { column: 'id', op: '=', value: '<string 3>' },
          ],
        },
        offset: '<integer>',
        limit: '<integer>',
      }),
    ) as { filter: { and: { value: unknown }[] }; offset: number; limit: number };
    const [price, sku, id] = got.filter.and.map((p) => p.value);
    expect(typeof price).toBe('number');
    expect(sku).toMatch(/^SKU-\d{8}$/);
    expect(typeof id).toBe('string');
    expect(got.offset).toBe(0);
    expect(got.limit).toBe(10);
    const like = fill.fill(
      shaped({ table: 'customers', filter: { column: 'email', op: 'like', value: '<string 20>' } }),
    ) as { filter: { value: string } };
    expect(like.filter.value).toMatch(/\\_|@/);
  });

  it('writes: fresh keys for inserts, updates and deletes on the rows inserted, a delete with none on a key no row holds', () => {
    const keys = new KeySpace((table) => counts[table]! + 10);
    const fill = shapeFiller({ scale: 0.001, seed: 7, agent: 0, keys });
    const write = (tool: string, args: unknown) => fill.fill({ ...shaped(args), tool }) as Record<string, unknown>;
    const byKey = { table: 'orders', filter: { column: 'id', op: '=', value: '<integer>' } };
    const keyOf = (args: Record<string, unknown>) => (args.filter as { value: number }).value;
    const insert = (n: number) =>
      (
        write('insert', { table: 'orders', rows: Array(n).fill({ id: '<integer>', status: '<string 4>' }) }).rows as {
          id: number;
          status: string;
        }[]
      ).map((r) => r.id);
    expect(insert(2)).toEqual([counts.orders! + 11, counts.orders! + 12]);
    expect(keyOf(write('update', byKey))).toBe(counts.orders! + 12);
    expect(keyOf(write('delete', byKey))).toBe(counts.orders! + 12);
    expect(keyOf(write('delete', byKey))).toBe(counts.orders! + 11);
    // nothing of its own left: an update takes a dataset row, a delete a key above every row
    expect(keyOf(write('update', byKey))).toBeLessThanOrEqual(counts.orders!);
    expect(keyOf(write('delete', byKey))).toBe(counts.orders! + 13);
    // another agent on the same target: its own keys, never one taken
    const other = shapeFiller({ scale: 0.001, seed: 7, agent: 1, keys });
    const step = other.fill({
      ...shaped({
        steps: [
          { op: 'insert', table: 'orders', rows: [{ id: '<integer>' }] },
          { op: 'delete', ...byKey },
        ],
      }),
      tool: 'transact',
    }) as { steps: [{ rows: { id: number }[] }, { filter: { value: number } }] };
    expect(step.steps[0].rows[0]!.id).toBe(counts.orders! + 14);
    expect(step.steps[1].filter.value).toBe(counts.orders! + 14);
  });

  it('types what no column explains, and leaves kept values and names alone', () => {
    const got = filler().fill(
      shaped({ table: 'not_ours', key: '<integer>', columns: ['a'], flag: '<boolean>', note: '<string 4>' }),
    );
    expect(got).toEqual({ table: 'not_ours', key: 1, columns: ['a'], flag: true, note: 'xxxx' });
  });
});

/** The id of an order with these values (the test's own search, to find a row the filler could have taken). */
function rows(dataset: Dataset, table: string, status: string, customer: number, currency: string): number {
  const t = TABLES.find((x) => x.name === table)!;
  let found = 0;
  generateRows(t, dataset, 1, dataset.count(table), (r) => {
    if (!found && r[2] === status && r[1] === customer && r[4] === currency) found = r[0] as number;
  });
  expect(found, 'a row with the filled values').toBeGreaterThan(0);
  return found;
}

/** A trace file written by hand: its header, then each session's line and its requests (think ms before each). */
function writeTrace(
  name: string,
  values: 'keep' | 'shape',
  sessions: { protocolVersion: string | null; requests: (Partial<TraceRequest> & { method: string })[] }[],
): string {
  const file = join(dir, `${name}.jsonl`);
  const lines: object[] = [{ type: 'trace', version: 1, startedAt: '2026-01-01T00:00:00Z', target: 'ours', values }];
  for (const [i, s] of sessions.entries()) {
    const session = `s${i + 1}`;
    const client = s.protocolVersion ? { name: 'hand', version: '1' } : null;
    lines.push({ type: 'session', session, at: 0, protocolVersion: s.protocolVersion, client });
    for (const r of s.requests) {
      const notification = r.method.startsWith('notifications/');
      lines.push({
        type: 'request',
        session,
        at: 0,
        thinkMs: 0,
        bytes: { request: 1, response: 1 },
        ...(notification ? {} : { durationMs: 1 }),
        ...r,
      });
    }
  }
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

/** The 2025-era handshake as a host sends it. */
const HANDSHAKE = [{ method: 'initialize' }, { method: 'notifications/initialized' }, { method: 'tools/list' }];

describe('run --replay when the server ends sessions', () => {
  it('starts an ended session again (404), counts the restart, retries the call: no errors', async () => {
    // a session idle for 1 s ends at the server; the host thought 1.5 s before each call
    const idle = await startServer(`sqlite:${join(dir, 'bench.db')}`, ['--workers', '1', '--session-idle', '1']);
    try {
      const trace = writeTrace('idle', 'keep', [
        {
          protocolVersion: '2025-06-18',
          requests: [
            ...HANDSHAKE,
            ...[5, 6].map((key) => ({
              method: 'tools/call',
              tool: 'get',
              arguments: { table: 'orders', key },
              thinkMs: 1_500,
            })),
          ],
        },
      ]);
      const out = join(dir, 'idle-result.json');
      const ran = await runCli(
        ['run', '--replay', trace, '--target', idle.endpoint, '--agents', '1,2', '--duration', '4s'].concat([
          '--warmup',
          '1ms',
          '--full',
          '--out',
          out,
        ]),
        { timeoutMs: 60_000 },
      );
      expect(ran.code, ran.stderr).toBe(0);
      const result = JSON.parse(readFileSync(out, 'utf8')) as ResultFile;
      for (const step of result.steps) {
        expect(step.errors).toEqual({});
        expect(step.reinitialized).toBeGreaterThanOrEqual(step.agents);
        expect(step.operations.get!.count).toBeGreaterThanOrEqual(step.agents);
      }
      // the report's Sessions table says so
      expect(ran.stdout).toMatch(/re-initialized/);
    } finally {
      await idle.stop();
    }
  }, 90_000);
});

/** An order, as the writing host inserts it. */
const order = (id: number) => ({
  id,
  customer_id: 1,
  status: 'pending',
  total: '10.00',
  currency: 'EUR',
  placed_at: '2026-01-01T00:00:00Z',
  shipped_at: null,
});

/** What the writing host does: an order inserted, updated and deleted by its key (as a filter tree and as text). */
const WRITES = [
  ['insert', { table: 'orders', rows: [order(900_001)] }],
  ['update', { table: 'orders', set: { status: 'paid' }, filter: { column: 'id', op: '=', value: 900_001 } }],
  ['delete', { table: 'orders', filter: 'id = 900001' }],
] as const;

async function writingHost(url: string): Promise<void> {
  const client = createClient({ kind: 'http', url }, { client: 'sdk', protocol: 'legacy' });
  try {
    await client.open();
    for (const [tool, args] of WRITES) {
      const answer = await client.callTool(tool, args);
      expect(answer.isError, JSON.stringify(answer.data)).toBe(false);
    }
  } finally {
    await client.close();
  }
}

/** Rows of a table at our server, all of them or those a filter keeps. */
async function countRows(url: string, table: string, filter?: string): Promise<number> {
  const client = createClient({ kind: 'http', url }, { client: 'lean', protocol: 'legacy' });
  try {
    await client.open();
    const answer = await client.callTool('aggregate', {
      table,
      aggregates: [{ fn: 'count', as: 'n' }],
      ...(filter ? { filter } : {}),
    });
    const rows = (answer.data as { rows: (unknown[] | Record<string, unknown>)[] }).rows;
    const first = rows[0]!;
    return Number(Array.isArray(first) ? first[0] : first.n);
  } finally {
    await client.close();
  }
}

describe('run --replay of a host that writes, values shaped', () => {
  const ORDERS = rowCounts(Number(SCALE)).orders!;

  it('inserts under fresh keys and updates and deletes the rows it inserted: no errors, no dataset row lost', async () => {
    const db = `sqlite:${join(dir, 'writes.db')}`;
    const seeded = await runCli(['seed', '--db', db, '--scale', SCALE, '--seed', SEED], { timeoutMs: 60_000 });
    expect(seeded.code, seeded.stderr).toBe(0);
    const writable = await startServer(db, ['--workers', '1', '--allow-writes']);
    try {
      const trace = await record('writes', 'shape', writingHost, writable.endpoint);
      expect(await countRows(writable.endpoint, 'orders')).toBe(ORDERS);
      // a row past the dataset's, as an earlier replay leaves: the new keys start above it
      const before = createClient({ kind: 'http', url: writable.endpoint }, { client: 'lean', protocol: 'legacy' });
      await before.open();
      expect((await before.callTool('insert', { table: 'orders', rows: [order(ORDERS + 1)] })).isError).toBe(false);
      await before.close();
      const { result, sent } = await replay(
        trace,
        ['--agents', '1,3', '--duration', '2s', '--think', '0', '--scale', SCALE, '--seed', SEED],
        writable.endpoint,
      );
      for (const step of result.steps) {
        expect(step.errors).toEqual({});
        expect(step.operations.insert!.count).toBeGreaterThan(0);
        expect(step.operations.delete!.count).toBeGreaterThan(0);
      }
      const calls = sent.filter((r) => r.method === 'tools/call');
      expect(calls.every((c) => c.error === undefined)).toBe(true);
      const inserted = calls
        .filter((c) => c.tool === 'insert')
        .map((c) => (c.arguments as { rows: { id: number }[] }).rows[0]!.id);
      // fresh keys above the dataset's, none twice
      expect(new Set(inserted).size).toBe(inserted.length);
      expect(Math.min(...inserted)).toBeGreaterThan(ORDERS + 1);
      // every update and delete names a row the replay inserted, and no row is deleted twice
      const keyOf = (c: TraceRequest) => {
        const filter = (c.arguments as { filter: unknown }).filter;
        return typeof filter === 'string'
          ? Number(/^id = (\d+)$/.exec(filter)?.[1])
          : (filter as { value: number }).value;
      };
      const deleted = calls.filter((c) => c.tool === 'delete').map(keyOf);
      for (const key of [...deleted, ...calls.filter((c) => c.tool === 'update').map(keyOf)])
        expect(inserted).toContain(key);
      expect(new Set(deleted).size).toBe(deleted.length);
      // the table holds the dataset's rows, untouched, and the inserted rows not deleted yet
      expect(await countRows(writable.endpoint, 'orders', `id <= ${ORDERS + 1}`)).toBe(ORDERS + 1);
      expect(await countRows(writable.endpoint, 'orders')).toBe(ORDERS + 1 + inserted.length - deleted.length);
      expect(inserted.length - deleted.length).toBeLessThanOrEqual(4);
    } finally {
      await writable.stop();
    }
  }, 180_000);

  it('when the server ends the session under a write, the retry sends the same row: every inserted row deleted', async () => {
    const db = `sqlite:${join(dir, 'idle-writes.db')}`;
    const seeded = await runCli(['seed', '--db', db, '--scale', SCALE, '--seed', SEED], { timeoutMs: 60_000 });
    expect(seeded.code, seeded.stderr).toBe(0);
    // every write waits past the server's idle limit: each one's session has ended when it is sent
    const idle = await startServer(db, ['--workers', '1', '--allow-writes', '--session-idle', '1']);
    try {
      const trace = writeTrace('idle-writes', 'shape', [
        {
          protocolVersion: '2025-06-18',
          requests: [
            ...HANDSHAKE,
            ...WRITES.map(([tool, args]) => ({
              method: 'tools/call',
              tool,
              arguments: shapeOf(args),
              thinkMs: 1_200,
            })),
          ],
        },
      ]);
      const out = await runCli(
        ['run', '--replay', trace, '--target', idle.endpoint, '--agents', '1,2', '--duration', '5s'].concat([
          '--warmup',
          '1ms',
          '--scale',
          SCALE,
          '--seed',
          SEED,
          '--format',
          'json',
        ]),
        { timeoutMs: 90_000 },
      );
      expect(out.code, out.stderr).toBe(0);
      let kept = 0;
      for (const step of (JSON.parse(out.stdout) as ResultFile).steps) {
        expect(step.errors).toEqual({});
        expect(step.reinitialized).toBeGreaterThanOrEqual(3 * step.agents);
        kept += step.operations.insert!.count - (step.operations.delete?.count ?? 0);
      }
      // each delete removed a row its agent inserted: what is left is the inserts not deleted yet
      expect(await countRows(idle.endpoint, 'orders', `id <= ${ORDERS}`)).toBe(ORDERS);
      expect(await countRows(idle.endpoint, 'orders')).toBe(ORDERS + kept);
    } finally {
      await idle.stop();
    }
  }, 120_000);

  it.skipIf(!process.env.PG_URL)(
    'on PostgreSQL, our server on --db',
    async () => {
      // the trace the writing host records: its calls, shaped
      const trace = writeTrace('writes-pg', 'shape', [
        {
          protocolVersion: '2025-06-18',
          requests: [
            ...HANDSHAKE,
            ...WRITES.map(([tool, args]) => ({ method: 'tools/call', tool, arguments: shapeOf(args) })),
          ],
        },
      ]);
      const url = await freshDatabase({ engine: 'postgres', baseUrl: process.env.PG_URL! }, 'bench_replay_writes');
      const out = await runCli(
        ['run', '--replay', trace, '--db', url, '--scale', SCALE, '--seed', SEED, '--indexes', 'optimized'].concat([
          '--agents',
          '1,3',
          '--duration',
          '2s',
          '--think',
          '0',
          '--warmup',
          '1ms',
          '--format',
          'json',
        ]),
        { timeoutMs: 150_000 },
      );
      expect(out.code, out.stderr).toBe(0);
      for (const step of (JSON.parse(out.stdout) as ResultFile).steps) {
        expect(step.errors).toEqual({});
        expect(step.operations.update!.count).toBeGreaterThan(0);
        expect(step.operations.delete!.count).toBeGreaterThan(0);
      }
      const pg = await startServer(url, ['--workers', '1']);
      try {
        expect(await countRows(pg.endpoint, 'orders', `id <= ${ORDERS}`)).toBe(ORDERS);
        // at most one row per agent inserted and not deleted yet when its step ended
        expect(await countRows(pg.endpoint, 'orders')).toBeLessThanOrEqual(ORDERS + 1 + 3);
      } finally {
        await pg.stop();
      }
    },
    180_000,
  );
});

describe('run --replay over stdio', () => {
  it('--target-cmd: each agent its own server process per era, both eras, the same calls answered', async () => {
    const call = (tool: string, args: object) => ({ method: 'tools/call', tool, arguments: args });
    const trace = writeTrace('stdio', 'keep', [
      {
        protocolVersion: '2025-06-18',
        requests: [
          ...HANDSHAKE,
          call('get', { table: 'orders', key: 5 }),
          call('query', { table: 'orders', filter: 'id < 4', limit: 5 }),
        ],
      },
      // a 2026-era session: server/discover first, which a process a 2025-era session initialized refuses
      {
        protocolVersion: null,
        requests: [
          { method: 'server/discover' },
          { method: 'tools/list' },
          call('get', { table: 'customers', key: 2 }),
        ],
      },
    ]);
    // the command notes each process it starts
    const pids = join(dir, 'stdio-pids');
    const wrapper = join(dir, 'note-pid.sh');
    writeFileSync(wrapper, `echo $$ >> ${pids}\nexec "$@"\n`);
    const server = `${process.execPath} ${SERVER_BIN} --url sqlite:${join(dir, 'bench.db')}`;
    const out = await runCli(
      ['run', '--replay', trace, '--target-cmd', `sh ${wrapper} ${server}`].concat([
        '--agents',
        '1,2',
        '--duration',
        '2s',
        '--think',
        '0',
        '--warmup',
        '1ms',
        '--format',
        'json',
      ]),
      { timeoutMs: 90_000 },
    );
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as ResultFile;
    expect(result.config.targets).toEqual([{ label: 'target', engine: null, url: null }]);
    expect(result.steps.map((s) => s.agents)).toEqual([1, 2]);
    for (const step of result.steps) {
      expect(step.errors).toEqual({});
      for (const op of ['initialize', 'server/discover', 'tools/list', 'get', 'query'])
        expect(step.operations[op]?.count, op).toBeGreaterThan(step.agents);
    }
    // the check of its tools, then two processes per agent of each step: one per era
    expect(readFileSync(pids, 'utf8').trim().split('\n')).toHaveLength(1 + 2 * (1 + 2));
  }, 120_000);
});
