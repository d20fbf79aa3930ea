import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineOf, freshDatabase, type LiveTarget, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementFacts } from '../src/telemetry/sql.js';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import {
  CLEAN_ENV,
  exportingTo,
  hasPoint,
  pointsOf,
  type Receiver,
  spansOf,
  startReceiver,
  until,
} from './support/otlp.js';
import { loadShop } from './support/shop.js';

/**
 * OpenTelemetry export, end to end: the built server, started with the standard OTEL_* variables
 * pointing at a real OTLP/HTTP receiver (JSON bodies), is called by a real MCP client; the spans
 * and metrics it exports are read back from what the receiver was sent.
 */

/** Logs each @opentelemetry module the server process resolves, to stderr. */
const MODULE_PROBE =
  "--import=data:text/javascript,import{registerHooks}from'node:module';registerHooks({resolve(s,c,n){" +
  "if(s.startsWith('@opentelemetry/'))process.stderr.write('resolved:'+s+String.fromCharCode(10));return(n(s,c))}})";

const SECRET = 'secret-value';

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
      ...exportingTo(receiver.url),
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

    // Only the service resource detector ran: `process` would export the command line, and the database URL.
    expect(Object.keys(query.resource).filter((k) => /^(process|host)\./.test(k))).toEqual([]);
    expect(query.resource['service.name']).toBe('mcp-db-server');

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
    const has = (metric: string, attributes: Record<string, unknown> = {}) => hasPoint(receiver, metric, attributes);
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
      ...exportingTo(receiver.url),
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
