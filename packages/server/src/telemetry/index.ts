import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine, StatementObserver } from '@mcp-db-bench/engines';
import { checkPrometheusPort, prometheusAddress, prometheusRequested } from './prometheus.js';

/** The variables that turn exporting on: an OTLP endpoint for everything, for traces, or for metrics. */
export const OTEL_ENDPOINT_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
] as const;

/** What a tool call ended with, as the telemetry records it. */
export interface ToolResult {
  /** the tool error's code; undefined when the call succeeded */
  code?: string;
  /** rows returned, for the tools that return rows */
  rows?: number;
}

/**
 * What the server tells its telemetry. The server holds one of these always: `NO_TELEMETRY` when
 * no OTLP endpoint is set, so that serving loads no @opentelemetry module and pays one property
 * read per hook; the OpenTelemetry one (otel.ts) otherwise.
 */
export interface Telemetry {
  readonly enabled: boolean;
  /** Serves one request on the MCP endpoint inside a span that ends with its response. */
  request(req: IncomingMessage, res: ServerResponse, serve: () => void): void;
  /** `fn`, run later (an event's callback), as part of the request being served now. */
  bind<F extends (...args: never[]) => unknown>(fn: F): F;
  /** Names the JSON-RPC method of the request being served, once its body is parsed. */
  method(name: unknown): void;
  /** Runs one tool call inside a span, and counts it; `database`: the database's name when a server serves several. */
  tool<T>(name: string, run: () => Promise<T>, result: (outcome: T) => ToolResult, database?: string): Promise<T>;
  /** What an engine reports its statements and connection waits to (undefined: nothing to report to). */
  observer(engine: Engine): StatementObserver | undefined;
  /** Reports the open 2025-era sessions, read at each export. */
  sessions(count: () => number): void;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}

export const NO_TELEMETRY: Telemetry = {
  enabled: false,
  request: (_req, _res, serve) => serve(),
  bind: (fn) => fn,
  method: () => {},
  tool: (_name, run) => run(),
  observer: () => undefined,
  sessions: () => {},
  shutdown: async () => {},
};

/** Whether an OTLP endpoint is set: traces are exported only then. */
export function endpointSet(env: NodeJS.ProcessEnv = process.env): boolean {
  return OTEL_ENDPOINT_VARIABLES.some((name) => (env[name] ?? '').trim() !== '');
}

/**
 * Whether the environment asks for OpenTelemetry (an OTLP endpoint is set, or
 * OTEL_METRICS_EXPORTER=prometheus, and the SDK is not disabled).
 */
export function telemetryRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED?.trim() ?? '')) return false;
  return endpointSet(env) || prometheusRequested(env);
}

/** The error when the variables are set but the packages are not installed. */
export class TelemetryUnavailableError extends Error {
  readonly code = 'telemetry_unavailable';
}

const MISSING_MODULE = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/**
 * The telemetry the environment asks for: OpenTelemetry when an OTLP endpoint is set or the
 * Prometheus exporter is named (the SDK is imported only then, and reads the other OTEL_*
 * variables itself), else NO_TELEMETRY.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<Telemetry> {
  if (!telemetryRequested(env)) return NO_TELEMETRY;
  if (prometheusRequested(env)) {
    const address = prometheusAddress(env);
    const taken = await checkPrometheusPort(address);
    if (taken) throw new TelemetryUnavailableError(taken);
    // The SDK reads the exporter's address from the process's environment.
    process.env.OTEL_EXPORTER_PROMETHEUS_HOST = address.host;
    process.env.OTEL_EXPORTER_PROMETHEUS_PORT = String(address.port);
  }
  let otel: typeof import('./otel.js');
  try {
    otel = await import('./otel.js');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && MISSING_MODULE.has(code)) {
      throw new TelemetryUnavailableError(
        `${[...OTEL_ENDPOINT_VARIABLES.filter((name) => env[name]), ...(prometheusRequested(env) ? ['OTEL_METRICS_EXPORTER=prometheus'] : [])].join(', ')} is set, but the OpenTelemetry ` +
          'packages are ' +
          "not installed: run 'npm install @opentelemetry/api @opentelemetry/sdk-node' to export telemetry " +
          '(or unset the variable)',
        { cause: error },
      );
    }
    throw error;
  }
  return otel.openTelemetry(env);
}
