import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@mcp-db-bench/testing';
import { exitOf } from './mcp.js';

/**
 * A real OpenTelemetry Collector (the one test/otelcol builds from the collector's Go modules;
 * .ci/run builds it into .tools/otelcol and exports OTELCOL_BIN) that takes OTLP over HTTP and
 * gRPC on loopback and forwards what it got, re-encoded as OTLP/HTTP JSON, to `forwardTo`.
 */

/** The collector binary: OTELCOL_BIN, or undefined (with a warning) where it is unset outside CI. */
export function collectorBin(): string | undefined {
  const bin = process.env.OTELCOL_BIN;
  if (bin && existsSync(bin)) return bin;
  const why = bin ? `OTELCOL_BIN=${bin} does not exist` : 'OTELCOL_BIN is not set';
  if (process.env.CI) throw new Error(`CI needs the OpenTelemetry Collector: ${why} (see .ci/run)`);
  console.warn(
    `telemetry-collector.test.ts skipped: ${why}; build it with ` +
      "'(cd packages/server/test/otelcol && go build -o ../../../../.tools/otelcol .)' and export OTELCOL_BIN",
  );
  return undefined;
}

export interface Collector {
  /** OTLP/HTTP, for OTEL_EXPORTER_OTLP_ENDPOINT */
  http: string;
  /** OTLP/gRPC */
  grpc: string;
  /** everything the collector logged so far */
  stderr(): string;
  stop(): Promise<void>;
}

/** The config: OTLP in, batched briefly, out to the debug exporter (its log) and, as JSON, to `forwardTo`. */
function config(httpPort: number, grpcPort: number, forwardTo: string): string {
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${httpPort}
      grpc:
        endpoint: 127.0.0.1:${grpcPort}
processors:
  batch:
    timeout: 100ms
exporters:
  debug:
    verbosity: basic
  otlp_http:
    endpoint: ${forwardTo}
    encoding: json
    compression: none
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [debug, otlp_http]
    metrics:
      receivers: [otlp]
      processors: [batch]
      exporters: [debug, otlp_http]
`;
}

const READY = 'Everything is ready';
const START_TIMEOUT_MS = 30_000;

/**
 * Starts the collector `bin` with its config in `dir`, and waits for its ready line. Its ports are
 * picked free before it binds them, so another process may take one first: it then tries new ones.
 */
export async function startCollector(bin: string, dir: string, forwardTo: string): Promise<Collector> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(bin, dir, forwardTo);
    } catch (error) {
      if (attempt === 3 || !/address already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function startOnce(bin: string, dir: string, forwardTo: string): Promise<Collector> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const file = join(dir, 'otelcol.yaml');
  writeFileSync(file, config(httpPort, grpcPort, forwardTo));
  const child: ChildProcess = spawn(bin, ['--config', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the collector was not ready in ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString('utf8');
      if (log.includes(READY)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`the collector exited (${exitOf(child)}) before it was ready`));
    });
  });
  const stop = async () => {
    if (exitOf(child) !== undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await ready;
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}:\n${log}`);
  }
  return { http: `http://127.0.0.1:${httpPort}`, grpc: `http://127.0.0.1:${grpcPort}`, stderr: () => log, stop };
}
