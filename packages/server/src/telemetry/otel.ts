import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine, StatementObserver } from '@mcp-db-bench/engines';
import {
  type Attributes,
  context,
  type Histogram,
  type Meter,
  metrics,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  trace,
  type UpDownCounter,
} from '@opentelemetry/api';
import { startNodeSdk } from '@opentelemetry/sdk-node';
import { VERSION } from '../version.js';
import { endpointSet, type Telemetry } from './index.js';
import { type StatementFacts, statementFacts } from './sql.js';

const SCOPE = '@mcp-db-bench/server';

/** The served database's name (`--url NAME=URL`), on a tool call's span and metrics when a server serves several. */
const DATABASE_ATTRIBUTE = 'mcp_db.database';

/** An error's kind for `error.type`: a driver's or a tool error's code, else its class. */
function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' || typeof code === 'number') return String(code);
  return (error as Error | null)?.constructor?.name ?? 'Error';
}

const seconds = (since: number) => (performance.now() - since) / 1000;

/*
 * Attribute objects are built once and shared, not per call: the SDK copies a span's attributes
 * and hashes a metric point's, so sharing is safe, and it spares the allocations and spreads
 * that were a measurable part of a call's telemetry (docs/server.md, What it costs).
 */

const requestSpans = new Map<string, SpanOptions>();
/** The options of a request's server span, per HTTP method. */
function requestOptions(method: string): SpanOptions {
  let options = requestSpans.get(method);
  if (!options) {
    options = {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': '/mcp', 'http.route': '/mcp' },
    };
    requestSpans.set(method, options);
  }
  return options;
}

interface ToolFacts {
  spanName: string;
  options: SpanOptions;
  /** the metric attributes of a call that succeeded */
  ok: Attributes;
  /** the metric attributes of a call that failed with `code` */
  failed(code: string): Attributes;
  /** the rows histogram's attributes */
  rows: Attributes;
}

const tools = new Map<string, ToolFacts>();
/** A tool's span and metric attributes, per tool and database (both few). */
function toolFacts(name: string, database: string | undefined): ToolFacts {
  const key = database === undefined ? name : `${name}\u0000${database}`;
  let facts = tools.get(key);
  if (facts) return facts;
  const served = database !== undefined ? { [DATABASE_ATTRIBUTE]: database } : {};
  const base = { 'gen_ai.tool.name': name, ...served };
  const failures = new Map<string, Attributes>();
  facts = {
    spanName: `tools/call ${name}`,
    options: { attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', ...base } },
    ok: { ...base, outcome: 'ok' },
    failed(code) {
      let labels = failures.get(code);
      if (!labels) {
        labels = { ...base, outcome: 'error', 'error.type': code };
        failures.set(code, labels);
      }
      return labels;
    },
    rows: { 'gen_ai.tool.name': name },
  };
  tools.set(key, facts);
  return facts;
}

/**
 * OpenTelemetry through the Node SDK, configured by the standard OTEL_* variables (exporters,
 * protocol, endpoints, intervals, sampler). Only the `service` resource detector runs: the
 * `process` one would export the command line, which may hold the database URL and its password.
 */
export function openTelemetry(env: NodeJS.ProcessEnv): Telemetry {
  const sdk = startSdk(env);
  const tracer = trace.getTracer(SCOPE, VERSION);
  const meter = metrics.getMeter(SCOPE, VERSION);
  const tool = toolCalls(tracer, meter);
  const database = databaseInstruments(meter);
  return {
    enabled: true,
    request: (req, res, serve) => serveInSpan(tracer, req, res, serve),
    bind: (fn) => context.bind(context.active(), fn),
    method(name: unknown) {
      if (typeof name === 'string') trace.getActiveSpan()?.setAttribute('mcp.method.name', name);
    },
    tool,
    observer: (engine) => statementObserver(tracer, database, engine),
    sessions: (count) => observeSessions(meter, count),
    shutdown: () => sdk.shutdown(),
  };
}

/** The Node SDK, started: its resource named, its logs kept off stdout. */
function startSdk(env: NodeJS.ProcessEnv): ReturnType<typeof startNodeSdk> {
  const level = env.OTEL_LOG_LEVEL?.trim().toLowerCase();
  // The SDK's default detectors include `process`, whose command line holds the database URL (its
  // password too) and would reach every export and Prometheus's target_info: only `service` runs
  // unless OTEL_NODE_RESOURCE_DETECTORS names others (the SDK reads process.env).
  if (!process.env.OTEL_NODE_RESOURCE_DETECTORS?.trim()) process.env.OTEL_NODE_RESOURCE_DETECTORS = 'service';
  const named = Boolean(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  return startNodeSdk({
    // The SDK logs with console.info and console.debug too, which write to stdout: under stdio
    // that is the protocol's stream, so only warnings and errors (stderr) are let through.
    logLevel: level === 'none' || level === 'error' ? level : 'warn',
    resourceAttributes: { ...(named ? {} : { 'service.name': 'mcp-db-server' }), 'service.version': VERSION },
    logRecordProcessors: [],
    // OTEL_METRICS_EXPORTER=prometheus alone asks for metrics: no spans to a default endpoint nobody set.
    ...(!endpointSet(env) && { spanProcessors: [] }),
  });
}

/** Serves one request on the MCP endpoint inside a server span that ends with its response. */
function serveInSpan(tracer: Tracer, req: IncomingMessage, res: ServerResponse, serve: () => void): void {
  const span = tracer.startSpan(`${req.method} /mcp`, requestOptions(req.method ?? ''));
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(context.active(), span), serve);
}

/** Tool calls: a span each, counted and timed by tool and outcome, with the rows they returned. */
function toolCalls(tracer: Tracer, meter: Meter): Telemetry['tool'] {
  const calls = meter.createCounter('mcp.server.tool.calls', {
    description: 'Tool calls, by tool and outcome',
    unit: '{call}',
  });
  const callDuration = meter.createHistogram('mcp.server.tool.duration', {
    description: 'Tool call duration',
    unit: 's',
  });
  const rowsReturned = meter.createHistogram('mcp.server.tool.rows', {
    description: 'Rows a tool call returned',
    unit: '{row}',
  });
  return (name, run, result, database) => {
    const facts = toolFacts(name, database);
    return tracer.startActiveSpan(facts.spanName, facts.options, async (span) => {
      const start = performance.now();
      try {
        const outcome = await run();
        const { code, rows } = result(outcome);
        const labels = code ? facts.failed(code) : facts.ok;
        if (code) {
          span.setAttribute('error.type', code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: code });
        }
        if (rows !== undefined) {
          span.setAttribute('db.response.returned_rows', rows);
          rowsReturned.record(rows, facts.rows);
        }
        calls.add(1, labels);
        callDuration.record(seconds(start), labels);
        return outcome;
      } finally {
        span.end();
      }
    });
  };
}

/** The database client's metrics (OpenTelemetry's db.client conventions), shared by every engine's observer. */
interface DatabaseInstruments {
  statementDuration: Histogram;
  waiting: UpDownCounter;
  waitTime: Histogram;
  inUse: UpDownCounter;
}

function databaseInstruments(meter: Meter): DatabaseInstruments {
  return {
    statementDuration: meter.createHistogram('db.client.operation.duration', {
      description: 'Database statement duration',
      unit: 's',
    }),
    waiting: meter.createUpDownCounter('db.client.connection.pending_requests', {
      description: 'Statements waiting for a pooled connection',
      unit: '{request}',
    }),
    waitTime: meter.createHistogram('db.client.connection.wait_time', {
      description: 'Time waited for a pooled connection',
      unit: 's',
    }),
    inUse: meter.createUpDownCounter('db.client.connection.count', {
      description: 'Pooled connections in use (db.client.connection.state = used)',
      unit: '{connection}',
    }),
  };
}

/** An engine's statements and pool waits: a client span each, timed; the connections it holds, counted. */
function statementObserver(tracer: Tracer, instruments: DatabaseInstruments, engine: Engine): StatementObserver {
  const { statementDuration, waiting, waitTime, inUse } = instruments;
  const system = engine.dbSystem;
  const used: Attributes = { 'db.system.name': system, 'db.client.connection.state': 'used' };
  const systemOnly: Attributes = { 'db.system.name': system };
  const statementAttributes = statementAttributesOf(system);
  return {
    statement(sql: string) {
      const facts = statementFacts(sql);
      const { options, attributes } = statementAttributes(facts);
      const span = tracer.startSpan(facts.name, options);
      const start = performance.now();
      return (error?: unknown) => {
        let labels = attributes;
        if (error !== undefined) {
          labels = { ...attributes, 'error.type': errorType(error) };
          span.setAttribute('error.type', labels['error.type']!);
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
        statementDuration.record(seconds(start), labels);
      };
    },
    held(change: 1 | -1) {
      inUse.add(change, used);
    },
    acquire() {
      const attributes = systemOnly;
      const span = tracer.startSpan('acquire connection', { attributes });
      const start = performance.now();
      waiting.add(1, attributes);
      return (error?: unknown) => {
        waiting.add(-1, attributes);
        waitTime.record(seconds(start), attributes);
        if (error !== undefined) {
          span.setAttribute('error.type', errorType(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      };
    },
  };
}

/** A statement's span options and metric attributes, built once per text (statementFacts keeps the texts). */
function statementAttributesOf(
  system: string,
): (facts: StatementFacts) => { options: SpanOptions; attributes: Attributes } {
  const built = new WeakMap<StatementFacts, { options: SpanOptions; attributes: Attributes }>();
  return (facts) => {
    let entry = built.get(facts);
    if (!entry) {
      const attributes: Attributes = {
        'db.system.name': system,
        'db.operation.name': facts.operation,
        ...(facts.collection && { 'db.collection.name': facts.collection }),
      };
      const options = { kind: SpanKind.CLIENT, attributes: { ...attributes, 'db.query.text': facts.text } };
      entry = { options, attributes };
      built.set(facts, entry);
    }
    return entry;
  };
}

/** The open 2025-era sessions, as a gauge read at each export. */
function observeSessions(meter: Meter, count: () => number): void {
  meter
    .createObservableGauge('mcp.server.sessions', {
      description: 'Open 2025-era sessions (Mcp-Session-Id)',
      unit: '{session}',
    })
    .addCallback((result) => result.observe(count()));
}
