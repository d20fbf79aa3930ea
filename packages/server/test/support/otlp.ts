import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './agents.js';

/**
 * What the telemetry tests read exported OpenTelemetry data with: a real OTLP/HTTP receiver that
 * takes JSON bodies (the server's own exports, or what a collector forwards), and the spans and
 * metric points in what it got.
 */

/** Every OTEL_* variable of the test process is dropped, so only the test's own apply. */
export const CLEAN_ENV = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('OTEL_'))
    .map((k) => [k, '']),
);

/** The OTLP variables that send a server's spans and metrics to `endpoint`, batched and exported quickly. */
export const exportingTo = (endpoint: string, protocol = 'http/json') => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_BSP_SCHEDULE_DELAY: '100',
  OTEL_METRIC_EXPORT_INTERVAL: '300',
  OTEL_METRIC_EXPORT_TIMEOUT: '250',
});

export interface Receiver {
  url: string;
  traces: unknown[];
  metrics: unknown[];
  /** the user-agent of each export received (a collector names itself there) */
  agents: Set<string>;
  close(): Promise<void>;
}

/** A real OTLP/HTTP receiver on loopback: takes /v1/traces and /v1/metrics as JSON and answers as a collector does. */
export async function startReceiver(): Promise<Receiver> {
  const traces: unknown[] = [];
  const metrics: unknown[] = [];
  const agents = new Set<string>();
  const server: Server = createServer((req, res) => {
    agents.add(req.headers['user-agent'] ?? '');
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
    agents,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type Attributes = Record<string, string | number | boolean | undefined>;
type RawAttributes = { key: string; value: AnyValue }[];

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  /** nanoseconds since the epoch, as a decimal string */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Attributes;
  /** the attributes of the resource that exported it (service.name, ...) */
  resource: Attributes;
}

const value = (v: AnyValue) =>
  v.stringValue ?? (v.intValue === undefined ? (v.doubleValue ?? v.boolValue) : Number(v.intValue));
const attributesOf = (list: RawAttributes = []): Attributes =>
  Object.fromEntries(list.map((a) => [a.key, value(a.value)]));

export function spansOf(receiver: Receiver): Span[] {
  type Raw = Omit<Span, 'attributes' | 'resource'> & { attributes?: RawAttributes };
  type Body = { resourceSpans?: { resource?: { attributes?: RawAttributes }; scopeSpans?: { spans?: Raw[] }[] }[] };
  return (receiver.traces as Body[]).flatMap((body) =>
    (body.resourceSpans ?? []).flatMap((r) =>
      (r.scopeSpans ?? []).flatMap((s) =>
        (s.spans ?? []).map((span) => ({
          ...span,
          parentSpanId: span.parentSpanId || undefined,
          attributes: attributesOf(span.attributes),
          resource: attributesOf(r.resource?.attributes),
        })),
      ),
    ),
  );
}

export interface Point {
  metric: string;
  attributes: Attributes;
  value: number;
}

/** Every data point of every metric exported, with its metric's name (sums, gauges and histogram counts). */
export function pointsOf(receiver: Receiver): Point[] {
  type Raw = {
    attributes?: RawAttributes;
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

/** Whether some point of `metric` has every one of `attributes` and a value above 0. */
export const hasPoint = (receiver: Receiver, metric: string, attributes: Record<string, unknown> = {}) =>
  pointsOf(receiver).some(
    (p) => p.metric === metric && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v) && p.value > 0,
  );

/** Waits (a bounded time) until `found` holds of what the receiver got. */
export async function until(found: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !found(); i++) await sleep(100);
  if (!found()) throw new Error(`the receiver did not get ${what} within 10 s`);
}
