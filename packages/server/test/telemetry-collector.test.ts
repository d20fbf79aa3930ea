import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineOf, freshDatabase, type LiveTarget, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { type Collector, collectorBin, startCollector } from './support/otelcol.js';
import {
  CLEAN_ENV,
  exportingTo,
  hasPoint,
  type Receiver,
  type Span,
  spansOf,
  startReceiver,
  until,
} from './support/otlp.js';
import { loadShop } from './support/shop.js';

/**
 * OpenTelemetry export to a real OpenTelemetry Collector (test/otelcol, built from the collector's
 * Go modules; OTELCOL_BIN names it): the built server exports over OTLP/HTTP protobuf (the SDK's
 * default) or gRPC to the collector, on every engine the tests reach, and the spans and metrics
 * are read back from what the collector forwards (re-encoded by it as OTLP/HTTP JSON).
 */

const BIN = collectorBin();
const SECRET = 'secret-value';
const PROTOCOLS = ['http/protobuf', 'grpc'] as const;
const CASES = BIN
  ? liveTargets().flatMap((target) => PROTOCOLS.map((protocol) => ({ engine: target.engine, target, protocol })))
  : [];

/** OTLP span kinds */
const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;

/**
 * Whether `child` starts and ends within `parent`, to the millisecond: the Node SDK anchors each
 * span's clock to Date.now() (whole milliseconds) when it starts.
 */
const MS = 1_000_000n;
const within = (child: Span, parent: Span) =>
  BigInt(child.startTimeUnixNano) >= BigInt(parent.startTimeUnixNano) - MS &&
  BigInt(child.endTimeUnixNano) <= BigInt(parent.endTimeUnixNano) + MS;

describe.skipIf(!BIN)('through an OpenTelemetry Collector', () => {
  describe.each(CASES)('$engine, OTLP $protocol', ({ target, protocol }) => {
    const engine = engineOf(target as LiveTarget);
    let dir: string;
    let receiver: Receiver;
    let collector: Collector;
    let server: HttpServer;
    let url: string;
    let modern: Client;
    let legacy: Client;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'mcp-otelcol-'));
      url = target.baseUrl.endsWith(':')
        ? `${target.baseUrl}${join(dir, 'shop.db')}`
        : await freshDatabase(target, 'bench_otelcol');
      await loadShop(url);
      receiver = await startReceiver();
      collector = await startCollector(BIN!, dir, receiver.url);
      server = await startHttpServer(url, engine.readOnlyStatement ? ['--sql'] : [], {
        ...CLEAN_ENV,
        ...exportingTo(protocol === 'grpc' ? collector.grpc : collector.http, protocol),
      });
      modern = await connectClient('http', 'modern', { dbUrl: url, endpoint: server.endpoint });
      // a 2025-era client holds a session, which the sessions gauge counts
      legacy = await connectClient('http', 'legacy', { dbUrl: url, endpoint: server.endpoint });
    }, 90_000);
    afterAll(async () => {
      await modern?.close();
      await legacy?.close();
      await server?.stop();
      await collector?.stop();
      await receiver?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('forwards the request, tool, connection and statement spans, linked parent to child, with no value in any', async () => {
      const answer = await callJson(modern, 'query', {
        table: 'customers',
        filter: `name = '${SECRET}' or id = 1`,
        columns: ['id', 'name'],
      });
      expect(answer.isError).toBe(false);
      expect(answer.data.rows).toHaveLength(1);
      if (engine.readOnlyStatement) {
        const sql = `select id from customers where name <> '${SECRET}' and id = 2`;
        expect((await callJson(legacy, 'sql', { sql })).isError).toBe(false);
      }
      const tool = (name: string) => spansOf(receiver).find((s) => s.name === `tools/call ${name}`);
      const childrenOf = (parent: Span) => spansOf(receiver).filter((s) => s.parentSpanId === parent.spanId);
      const last = engine.readOnlyStatement ? 'sql' : 'query';
      await until(
        () => tool('query') !== undefined && tool(last) !== undefined && childrenOf(tool(last)!).length > 0,
        'the tool spans and their statements',
      );
      // The data came through the collector: its exporter sent it, and the resource is the server's.
      expect([...receiver.agents]).toEqual([expect.stringMatching(/^OpenTelemetry Collector .*\/0\.165\.0 \(linux\//)]);
      const spans = spansOf(receiver);
      const query = tool('query')!;
      expect(query).toMatchObject({ kind: INTERNAL });
      expect(query.resource).toMatchObject({
        'service.name': 'mcp-db-server',
        'service.version': VERSION,
        'telemetry.sdk.language': 'nodejs',
      });
      // Only the service detector ran: no process.command_args, which holds the database URL.
      expect(Object.keys(query.resource).filter((k) => /^(process|host)\./.test(k))).toEqual([]);
      expect(query.attributes).toMatchObject({
        'gen_ai.tool.name': 'query',
        'mcp.method.name': 'tools/call',
        'db.response.returned_rows': 1,
      });

      const request = spans.find((s) => s.spanId === query.parentSpanId)!;
      expect(request).toMatchObject({
        name: 'POST /mcp',
        kind: SERVER,
        traceId: query.traceId,
        parentSpanId: undefined,
      });
      expect(request.attributes).toMatchObject({ 'http.response.status_code': 200, 'mcp.method.name': 'tools/call' });
      expect(within(query, request)).toBe(true);

      const children = childrenOf(query);
      const select = children.find((s) => s.name === 'SELECT customers');
      expect(select).toMatchObject({ kind: CLIENT, traceId: query.traceId });
      expect(select!.attributes).toMatchObject({
        'db.system.name': engine.dbSystem,
        'db.operation.name': 'SELECT',
        'db.collection.name': 'customers',
      });
      expect(select!.attributes['db.query.text']).toMatch(/^select .*customers.*where/i);
      // A wait for a pooled connection: under the read, or under the `sql` tool's statement on
      // PostgreSQL, whose reads take the pipelined lane and wait for no pooled connection.
      const sqlChildren = engine.readOnlyStatement ? childrenOf(tool('sql')!) : [];
      expect([...children, ...sqlChildren].map((s) => s.name)).toContain('acquire connection');
      // Every child of the call is a statement or a wait for a connection, in its trace and its time.
      for (const child of children) {
        expect(child.name).toMatch(/^(SELECT \S+|acquire connection)$/);
        expect(child).toMatchObject({ traceId: query.traceId });
        expect(child.attributes['db.system.name']).toBe(engine.dbSystem);
        expect(within(child, query)).toBe(true);
      }
      if (engine.readOnlyStatement) {
        const sqlCall = tool('sql')!;
        const statements = childrenOf(sqlCall).filter((s) => /customers/.test(String(s.attributes['db.query.text'])));
        expect(statements.length).toBeGreaterThan(0);
        expect(spans.find((s) => s.spanId === sqlCall.parentSpanId)?.name).toBe('POST /mcp');
      }
      // The filter's value and the sql tool's literal reached the database, and nothing the collector forwarded.
      expect(JSON.stringify(receiver.traces)).not.toContain(SECRET);
      expect(JSON.stringify([receiver.traces, receiver.metrics])).not.toContain(url);
      // The debug exporter logged what it got.
      expect(collector.stderr()).toMatch(/Traces.*"spans": \d+/);
    }, 30_000);

    it('forwards the call, statement, connection and session metrics', async () => {
      const has = (metric: string, attributes: Record<string, unknown> = {}) => hasPoint(receiver, metric, attributes);
      await until(
        () =>
          has('mcp.server.tool.calls', { 'gen_ai.tool.name': 'query', outcome: 'ok' }) &&
          has('db.client.operation.duration', {
            'db.system.name': engine.dbSystem,
            'db.collection.name': 'customers',
          }) &&
          has('mcp.server.sessions'),
        'the metrics',
      );
      expect(has('mcp.server.tool.duration', { 'gen_ai.tool.name': 'query', outcome: 'ok' })).toBe(true);
      expect(has('mcp.server.tool.rows', { 'gen_ai.tool.name': 'query' })).toBe(true);
      expect(has('db.client.connection.wait_time', { 'db.system.name': engine.dbSystem })).toBe(true);
      expect(collector.stderr()).toMatch(/Metrics.*"data points": \d+/);
    }, 30_000);
  });
});
