import { createServer } from 'node:net';

/**
 * `OTEL_METRICS_EXPORTER=prometheus`: the Node SDK's own Prometheus exporter (a dependency of
 * @opentelemetry/sdk-node) serves the metrics for scraping on OTEL_EXPORTER_PROMETHEUS_HOST and
 * _PORT. This file holds what the server adds to it: loopback unless told otherwise, one port
 * per `--workers` process, and a start that fails on a taken port instead of serving on without
 * metrics (the exporter only logs the clash).
 */

/** The exporter's default port (the one registered for it with Prometheus). */
export const PROMETHEUS_PORT = 9464;

/** Whether OTEL_METRICS_EXPORTER names `prometheus` (and not `none`, which the SDK lets win). */
export function prometheusRequested(env: NodeJS.ProcessEnv): boolean {
  const names = (env.OTEL_METRICS_EXPORTER ?? '').split(',').map((name) => name.trim());
  return names.includes('prometheus') && !names.includes('none');
}

/** Where the exporter listens: loopback by default (the metrics name tables; the exporter's own default is `localhost`). */
export function prometheusAddress(env: NodeJS.ProcessEnv): { host: string; port: number } {
  const port = Number(env.OTEL_EXPORTER_PROMETHEUS_PORT?.trim() || PROMETHEUS_PORT);
  return {
    host: env.OTEL_EXPORTER_PROMETHEUS_HOST?.trim() || '127.0.0.1',
    port: Number.isInteger(port) && port > 0 && port < 65536 ? port : PROMETHEUS_PORT,
  };
}

/**
 * The variables a `--workers` process `slot` (0-based, kept by a replacement) starts with: its
 * own port, the base port plus its slot. Workers share the MCP port through the primary, which
 * would share a /metrics port the same way: each scrape would then read one worker's counters
 * at random. Empty when the exporter is not asked for.
 */
export function prometheusWorkerEnv(env: NodeJS.ProcessEnv, slot: number): Record<string, string> {
  if (!prometheusRequested(env)) return {};
  return { OTEL_EXPORTER_PROMETHEUS_PORT: String(prometheusAddress(env).port + slot) };
}

/**
 * Binds the address and lets it go, so a taken port stops the start with a message. `exclusive`:
 * a `--workers` process checks the port itself, not through its primary.
 */
export function checkPrometheusPort(address: { host: string; port: number }): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(
        `OTEL_METRICS_EXPORTER=prometheus cannot listen on ${address.host}:${address.port} (${error.code ?? error.message}): ` +
          'set OTEL_EXPORTER_PROMETHEUS_PORT to a free port (under --workers N, N ports from it)',
      ),
    );
    server.listen({ ...address, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
