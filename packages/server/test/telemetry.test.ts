import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementFacts } from '../src/telemetry/sql.js';
import { sleep } from './support/agents.js';
import { engineOf, freshDatabase, type LiveTarget, liveTargets } from './support/databases.js';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * OpenTelemetry export, end to end: the built server, started with the standard OTEL_* variables
 * pointing at a real OTLP/HTTP receiver (JSON bodies), is called by a real MCP client; the spans
 * and metrics it exports are read back from what the receiver was sent.
 */

/** Every OTEL_* variable of the test process is dropped, so only the test's own apply. */
const CLEAN_ENV = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('OTEL_'))
    .map((k) => [k, '']),
);

/** Logs each @opentelemetry module the server process resolves, to stderr. */
const MODULE_PROBE =
  "--import=data:text/javascript,import{registerHooks}from'node:module';registerHooks({resolve(s,c,n){" +
  "if(s.startsWith('@opentelemetry/'))process.stderr.write('resolved:'+s+String.fromCharCode(10));return(n(s,c))}})";

const SECRET = 'secret-value';

interface Receiver {
  url: string;
  traces: unknown[];
  metrics: unknown[];
  close(): Promise<void>;
}

/** A real OTLP/HTTP receiver on loopback: takes /v1/traces and /v1/metrics as JSON and answers as a collector does. */
async function startReceiver(): Promise<Receiver> {
  const traces: unknown[] = [];
  const metrics: unknown[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as unknown;
      if (req.url === '/v1/traces') traces.push(body);
      else if (req.url === '/v1/metrics') metrics.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    traces,
    metrics,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
}

const value = (v: AnyValue) =>
  v.stringValue ?? (v.intValue === undefined ? (v.doubleValue ?? v.boolValue) : Number(v.intValue));
const attributesOf = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

function spansOf(receiver: Receiver): Span[] {
  return (
    receiver.traces as { resourceSpans?: { scopeSpans?: { spans?: (Span & { attributes: never })[] }[] }[] }[]
  ).flatMap((body) =>
    (body.resourceSpans ?? []).flatMap((r) =>
      (r.scopeSpans ?? []).flatMap((s) =>
        (s.spans ?? []).map((span) => ({
          ...span,
          parentSpanId: span.parentSpanId || undefined,
          attributes: attributesOf(span.attributes),
        })),
      ),
    ),
  );
}

interface Point {
  metric: string;
  attributes: Record<string, unknown>;
  value: number;
}

/** Every data point of every metric exported, with its metric's name (sums, gauges and histogram counts). */
function pointsOf(receiver: Receiver): Point[] {
  type Raw = {
    attributes?: { key: string; value: AnyValue }[];
    asInt?: string | number;
    asDouble?: number;
    count?: string | number;
  };
  type Metric = {
    name: string;
    sum?: { dataPoints: Raw[] };
    gauge?: { dataPoints: Raw[] };
    histogram?: { dataPoints: Raw[] };
  };
  return (receiver.metrics as { resourceMetrics?: { scopeMetrics?: { metrics?: Metric[] }[] }[] }[]).flatMap((body) =>
    (body.resourceMetrics ?? []).flatMap((r) =>
      (r.scopeMetrics ?? []).flatMap((s) =>
        (s.metrics ?? []).flatMap(
          (m) =>
            (m.sum ?? m.gauge ?? m.histogram)?.dataPoints.map((p) => ({
              metric: m.name,
              attributes: attributesOf(p.attributes),
              value: Number(p.asInt ?? p.asDouble ?? p.count ?? 0),
            })) ?? [],
        ),
      ),
    ),
  );
}

/** Waits (a bounded time) until `found` holds of what the receiver got. */
async function until(found: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !found(); i++) await sleep(100);
  if (!found()) throw new Error(`the receiver did not get ${what} within 10 s`);
}

/** The OTLP variables that send a server's spans and metrics to `receiver`, batched and exported quickly. */
const exportingTo = (receiver: Receiver) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_METRIC_EXPORT_INTERVAL: '300',
  OTEL_METRIC_EXPORT_TIMEOUT: '250',
});

describe('statement facts', () => {
  it('names the operation and the table, and keeps no literal', () => {
    expect(statementFacts('select "id", "name" from "customers" where "name" = $1 limit $2')).toEqual({
      name: 'SELECT customers',
      operation: 'SELECT',
      collection: 'customers',
      text: 'select "id", "name" from "customers" where "name" = $1 limit $2',
    });
    const written = statementFacts(
      `select t1.id from \`shop\`.\`orders\` t1 where note = 'it''s ${SECRET}' and total > 12.5 and id = @p1`,
    );
    expect(written).toMatchObject({ name: 'SELECT shop.orders', collection: 'shop.orders' });
    expect(written.text).toBe('select t1.id from `shop`.`orders` t1 where note = ? and total > ? and id = @p1');
    expect(statementFacts('begin').name).toBe('BEGIN');
  });
});

describe.each(liveTargets())('$engine', (target: LiveTarget) => {
  const engine = engineOf(target);
  let dir: string;
  let url: string;
  let receiver: Receiver;
  let server: HttpServer;
  let modern: Client;
  let legacy: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-otel-'));
    url = target.baseUrl.endsWith(':')
      ? `${target.baseUrl}${join(dir, 'shop.db')}`
      : await freshDatabase(target, 'bench_otel');
    await loadShop(url);
    receiver = await startReceiver();
    server = await startHttpServer(url, engine.readOnlyStatement ? ['--sql'] : [], {
      ...CLEAN_ENV,
      ...exportingTo(receiver),
      NODE_OPTIONS: MODULE_PROBE,
    });
    modern = await connectClient('http', 'modern', { dbUrl: url, endpoint: server.endpoint });
    legacy = await connectClient('http', 'legacy', { dbUrl: url, endpoint: server.endpoint });
  }, 60_000);
  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
    await server?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports a request span, a tool span under it and a statement span under that, with no value in any', async () => {
    const filter = `name = '${SECRET}' or id = 1`;
    const answer = await callJson(modern, 'query', { table: 'customers', filter, columns: ['id', 'name'] });
    expect(answer.isError).toBe(false);
    expect(answer.data.rows).toHaveLength(1);
    expect((await callJson(legacy, 'query', { table: 'no_such_table' })).isError).toBe(true);
    if (engine.readOnlyStatement) {
      expect(
        (await callJson(modern, 'sql', { sql: `select id from customers where name <> '${SECRET}' and id = 2` }))
          .isError,
      ).toBe(false);
    }
    const tool = (name: string, error?: string) =>
      spansOf(receiver).find((s) => s.name === `tools/call ${name}` && s.attributes['error.type'] === error);
    await until(() => tool('query') !== undefined && tool('query', 'unknown_table') !== undefined, 'the tool spans');
    const spans = spansOf(receiver);
    const query = tool('query')!;
    expect(query.attributes).toMatchObject({
      'gen_ai.tool.name': 'query',
      'mcp.method.name': 'tools/call',
      'db.response.returned_rows': 1,
    });

    const request = spans.find((s) => s.spanId === query.parentSpanId);
    expect(request).toMatchObject({ name: 'POST /mcp', traceId: query.traceId, parentSpanId: undefined });
    expect(request!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'mcp.method.name': 'tools/call',
    });

    const statements = spans.filter(
      (s) => s.parentSpanId === query.spanId && s.attributes['db.system.name'] !== undefined,
    );
    const select = statements.find((s) => s.attributes['db.operation.name'] === 'SELECT');
    expect(select).toMatchObject({ name: 'SELECT customers', kind: 3 /* client */, traceId: query.traceId });
    expect(select!.attributes).toMatchObject({
      'db.system.name': engine.dbSystem,
      'db.collection.name': 'customers',
    });
    expect(select!.attributes['db.query.text']).toMatch(/^select .*customers.*where/i);

    // The failed call: its span says the tool error's code, under a request of its own.
    const failed = tool('query', 'unknown_table')!;
    expect(spans.find((s) => s.spanId === failed.parentSpanId)?.name).toBe('POST /mcp');

    if (engine.readOnlyStatement) {
      await until(() => spansOf(receiver).some((s) => s.name === 'tools/call sql'), 'the sql span');
      const sqlCall = spansOf(receiver).find((s) => s.name === 'tools/call sql')!;
      const written = spansOf(receiver).filter(
        (s) => s.parentSpanId === sqlCall.spanId && /customers/.test(String(s.attributes['db.query.text'])),
      );
      expect(written.length).toBeGreaterThan(0);
    }
    // The filter's value and the sql tool's literal reached the database, and no span.
    expect(JSON.stringify(receiver.traces)).not.toContain(SECRET);
  }, 30_000);

  it('exports calls, latency and rows by tool, statement latency, and the open sessions', async () => {
    const has = (metric: string, attributes: Record<string, unknown> = {}) =>
      pointsOf(receiver).some(
        (p) =>
          p.metric === metric && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v) && p.value > 0,
      );
    await until(
      () =>
        has('mcp.server.tool.calls', { 'gen_ai.tool.name': 'query', outcome: 'ok' }) &&
        has('mcp.server.tool.calls', {
          'gen_ai.tool.name': 'query',
          outcome: 'error',
          'error.type': 'unknown_table',
        }) &&
        has('mcp.server.sessions'),
      'the metrics',
    );
    expect(has('mcp.server.tool.duration', { 'gen_ai.tool.name': 'query', outcome: 'ok' })).toBe(true);
    expect(has('mcp.server.tool.rows', { 'gen_ai.tool.name': 'query' })).toBe(true);
    expect(
      has('db.client.operation.duration', { 'db.system.name': engine.dbSystem, 'db.collection.name': 'customers' }),
    ).toBe(true);
    expect(has('db.client.connection.wait_time', { 'db.system.name': engine.dbSystem })).toBe(true);
    // Connections in use: exported, and once the calls are done every one handed out is given back
    // (an export may catch a statement still running: the sum reaches 0 by a later one).
    const inUse = () =>
      pointsOf(receiver).filter(
        (p) => p.metric === 'db.client.connection.count' && p.attributes['db.client.connection.state'] === 'used',
      );
    await until(() => inUse().length > 0 && inUse().at(-1)!.value === 0, 'every pooled connection given back');
    expect(server.stderr()).toContain('resolved:@opentelemetry/sdk-node');
  }, 30_000);
});

describe('with no OTLP endpoint set', () => {
  let dir: string;
  let server: HttpServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-otel-off-'));
    const url = `sqlite:${join(dir, 'shop.db')}`;
    await loadShop(url);
    server = await startHttpServer(url, [], { ...CLEAN_ENV, NODE_OPTIONS: MODULE_PROBE });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads no @opentelemetry module, even serving calls', async () => {
    const client = await connectClient('http', 'modern', { dbUrl: '', endpoint: server.endpoint });
    try {
      expect((await callJson(client, 'query', { table: 'customers', limit: 2 })).isError).toBe(false);
    } finally {
      await client.close();
    }
    expect(server.stderr()).not.toContain('resolved:');
  });
});

describe('several databases (--url NAME=URL)', () => {
  let dir: string;
  let receiver: Receiver;
  let server: HttpServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-otel-multi-'));
    const [a, b] = ['a.db', 'b.db'].map((name) => `sqlite:${join(dir, name)}`);
    await loadShop(a!);
    await loadShop(b!);
    receiver = await startReceiver();
    server = await startHttpServer(`first=${a}`, ['--url', `second=${b}`], {
      ...CLEAN_ENV,
      ...exportingTo(receiver),
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the database on the tool span and on the call metrics', async () => {
    const client = await connectClient('http', 'modern', { dbUrl: '', endpoint: server.endpoint });
    try {
      expect((await callJson(client, 'get', { table: 'orders', key: 1, database: 'second' })).isError).toBe(false);
    } finally {
      await client.close();
    }
    const span = () => spansOf(receiver).find((s) => s.name === 'tools/call get');
    await until(() => span() !== undefined, 'the tool span');
    expect(span()!.attributes).toMatchObject({ 'gen_ai.tool.name': 'get', 'mcp_db.database': 'second' });
    const counted = () =>
      pointsOf(receiver).some(
        (p) => p.metric === 'mcp.server.tool.calls' && p.attributes['mcp_db.database'] === 'second' && p.value > 0,
      );
    await until(counted, 'the call metric');
  }, 30_000);
});
