/**
 * `run --trace-split`: a small OTLP/HTTP JSON receiver on loopback that our servers export their
 * spans to, kept as one record per tool call: when its request began, and how long the server
 * spent in it, in database statements and waiting for a pooled connection. Only what the split
 * needs is kept; the spans themselves are dropped as they arrive.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call as the server's spans tell it (nanoseconds, wall clock). */
export interface ServedCall {
  /** when the request's `POST /mcp` span began, epoch milliseconds */
  startMs: number;
  serverNs: number;
  databaseNs: number;
  waitNs: number;
}

export interface SpanReceiver {
  /** The variables that point one of our servers at this receiver (every trace, exported within 100 ms). */
  readonly env: Record<string, string>;
  /** The calls read back so far, in arrival order. */
  calls(): readonly ServedCall[];
  /** Resolves once no export has come for `quietMs` (or after `maxMs` at most). */
  settle(quietMs: number, maxMs: number): Promise<void>;
  close(): Promise<void>;
}

/** What a request's spans add up to until its own span (the root, ended last) arrives. */
interface Open {
  tool: boolean;
  databaseNs: number;
  waitNs: number;
}

interface OtlpSpan {
  traceId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number | string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
}

/** SPAN_KIND_CLIENT in OTLP JSON: the server's database statements (docs/server.md, OpenTelemetry). */
const CLIENT = new Set<number | string>([3, 'SPAN_KIND_CLIENT']);
const REQUEST = 'POST /mcp';
const WAIT = 'acquire connection';
/** Requests whose own span never came (dropped, or the call outlived the run): forgotten past this many. */
const MAX_OPEN = 100_000;

export async function startSpanReceiver(): Promise<SpanReceiver> {
  const calls: ServedCall[] = [];
  const open = new Map<string, Open>();
  let lastArrival = Date.now();
  let pending = 0;

  const take = (span: OtlpSpan) => {
    const trace = span.traceId;
    if (!trace || span.startTimeUnixNano === undefined || span.endTimeUnixNano === undefined) return;
    const start = BigInt(span.startTimeUnixNano);
    const ns = Number(BigInt(span.endTimeUnixNano) - start);
    const root = !span.parentSpanId;
    if (root) {
      const parts = open.get(trace);
      open.delete(trace);
      // initialize, notifications and the like: no tool call to split
      if (span.name === REQUEST && parts?.tool)
        calls.push({
          startMs: Number(start / 1_000_000n),
          serverNs: ns,
          databaseNs: parts.databaseNs,
          waitNs: parts.waitNs,
        });
      return;
    }
    let parts = open.get(trace);
    if (!parts) {
      if (open.size >= MAX_OPEN) open.clear();
      parts = { tool: false, databaseNs: 0, waitNs: 0 };
      open.set(trace, parts);
    }
    if (span.name?.startsWith('tools/call ')) parts.tool = true;
    else if (span.name === WAIT) parts.waitNs += ns;
    else if (span.kind !== undefined && CLIENT.has(span.kind)) parts.databaseNs += ns;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    pending++;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      pending--;
      lastArrival = Date.now();
      if (req.url === '/v1/traces') {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[];
          };
          for (const resource of body.resourceSpans ?? [])
            for (const scope of resource.scopeSpans ?? []) for (const span of scope.spans ?? []) take(span);
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{}');
          return;
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    req.on('error', () => {
      pending--;
    });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_EXPORTER: 'otlp',
      // the split reads spans alone: no metric or log export to pay for
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // a busy step ends thousands of spans a second: none may be dropped for want of room
      OTEL_BSP_MAX_QUEUE_SIZE: '200000',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048',
    },
    calls: () => calls,
    async settle(quietMs, maxMs) {
      const until = Date.now() + maxMs;
      while ((pending > 0 || Date.now() - lastArrival < quietMs) && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, quietMs / 4));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
