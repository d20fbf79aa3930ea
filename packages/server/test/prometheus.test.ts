import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  engineOf,
  type Family,
  freePort,
  freshDatabase,
  havePrometheusParser,
  type LiveTarget,
  liveTargets,
  parsePrometheus as parse,
} from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telemetryRequested } from '../src/telemetry/index.js';
import { prometheusAddress, prometheusWorkerEnv } from '../src/telemetry/prometheus.js';
import { sleep } from './support/agents.js';
import { BIN, callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * OTEL_METRICS_EXPORTER=prometheus, end to end: the built server, with no OTLP endpoint set, is
 * called by a real MCP client and scraped over HTTP; what /metrics answers is read by the
 * Prometheus Python client's own text-format parser (prometheus_client, installed by .ci/run into
 * .tools/py from test/clients/requirements.txt), not by a parser of ours.
 */

const run = promisify(execFile);
const haveVenv = havePrometheusParser('prometheus.test.ts');

/** Every OTEL_* variable of the test process is dropped, so only the test's own apply. */
const CLEAN_ENV = Object.fromEntries(
  Object.keys(process.env)
    .filter((k) => k.startsWith('OTEL_'))
    .map((k) => [k, '']),
);

async function scrape(port: number): Promise<Family[]> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  return parse(await response.text());
}

/** The value of the samples named `sample` whose labels include `labels`, added up. */
function total(families: readonly Family[], sample: string, labels: Record<string, string> = {}): number {
  return families
    .flatMap((f) => f.samples)
    .filter((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** A free port whose next one is free too (a two-worker server takes both). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const next = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port + 1, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (next) return port;
  }
}

const prometheusEnv = (port: number) => ({
  ...CLEAN_ENV,
  OTEL_METRICS_EXPORTER: 'prometheus',
  OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
});

describe('the variables', () => {
  it('turn metrics on with OTEL_METRICS_EXPORTER=prometheus alone, unless none or OTEL_SDK_DISABLED says otherwise', () => {
    expect(telemetryRequested({ OTEL_METRICS_EXPORTER: 'prometheus' })).toBe(true);
    expect(telemetryRequested({ OTEL_METRICS_EXPORTER: 'otlp, prometheus' })).toBe(true);
    expect(telemetryRequested({ OTEL_METRICS_EXPORTER: 'otlp' })).toBe(false);
    expect(telemetryRequested({ OTEL_METRICS_EXPORTER: 'prometheus,none' })).toBe(false);
    expect(telemetryRequested({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });

  it('listen on loopback by default, and give worker i the port plus i', () => {
    expect(prometheusAddress({})).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(
      prometheusAddress({ OTEL_EXPORTER_PROMETHEUS_HOST: '0.0.0.0', OTEL_EXPORTER_PROMETHEUS_PORT: '9100' }),
    ).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(prometheusWorkerEnv({ OTEL_METRICS_EXPORTER: 'prometheus' }, 0)).toEqual({
      OTEL_EXPORTER_PROMETHEUS_PORT: '9464',
    });
    expect(
      prometheusWorkerEnv({ OTEL_METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: '9100' }, 3),
    ).toEqual({ OTEL_EXPORTER_PROMETHEUS_PORT: '9103' });
    expect(prometheusWorkerEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, 1)).toEqual({});
  });
});

describe.skipIf(!haveVenv).each(liveTargets())('$engine', (target: LiveTarget) => {
  const engine = engineOf(target);
  let dir: string;
  let url: string;
  let port: number;
  let server: HttpServer;
  let client: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-prom-'));
    url = target.baseUrl.endsWith(':')
      ? `${target.baseUrl}${join(dir, 'shop.db')}`
      : await freshDatabase(target, 'bench_prom');
    await loadShop(url);
    port = await freePort();
    server = await startHttpServer(url, [], prometheusEnv(port));
    client = await connectClient('http', 'modern', { dbUrl: url, endpoint: server.endpoint });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the tool calls, their latency and the statements on /metrics, with no OTLP endpoint set', async () => {
    for (let i = 0; i < 3; i++)
      expect((await callJson(client, 'query', { table: 'customers', limit: 2 })).isError).toBe(false);
    expect((await callJson(client, 'query', { table: 'no_such_table' })).isError).toBe(true);
    expect(server.stderr()).toContain(`metrics for Prometheus on http://127.0.0.1:${port}/metrics`);

    const families = await scrape(port);
    const calls = families.find((f) => f.name === 'mcp_server_tool_calls');
    expect(calls?.type).toBe('counter');
    expect(total(families, 'mcp_server_tool_calls_total', { gen_ai_tool_name: 'query', outcome: 'ok' })).toBe(3);
    expect(
      total(families, 'mcp_server_tool_calls_total', {
        gen_ai_tool_name: 'query',
        outcome: 'error',
        error_type: 'unknown_table',
      }),
    ).toBe(1);
    expect(families.find((f) => f.name === 'mcp_server_tool_duration')?.type).toBe('histogram');
    expect(total(families, 'mcp_server_tool_duration_count', { gen_ai_tool_name: 'query', outcome: 'ok' })).toBe(3);
    expect(total(families, 'mcp_server_tool_rows_sum', { gen_ai_tool_name: 'query' })).toBe(6);
    expect(
      total(families, 'db_client_operation_duration_count', {
        db_system_name: engine.dbSystem,
        db_collection_name: 'customers',
      }),
    ).toBeGreaterThanOrEqual(3);
    // The resource is the service's only: no command line (it holds the database URL), no host.
    const info = families.find((f) => f.name === 'target_info')?.samples[0]?.labels ?? {};
    expect(info.service_name).toBe('mcp-db-server');
    expect(Object.keys(info).filter((k) => k.startsWith('process_') || k.startsWith('host_'))).toEqual([]);
    expect(JSON.stringify(families)).not.toContain(url);
  }, 30_000);
});

describe.skipIf(!haveVenv)('under --workers 2', () => {
  let dir: string;
  let port: number;
  let server: HttpServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-prom-workers-'));
    const url = `sqlite:${join(dir, 'shop.db')}`;
    await loadShop(url);
    port = await freePortPair();
    server = await startHttpServer(url, ['--workers', '2'], prometheusEnv(port));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives each worker its own port, PORT and PORT+1, whose counts add up to the calls made; a replaced worker keeps its port', async () => {
    // Clients of their own: each connection may land on either worker.
    for (let i = 0; i < 6; i++) {
      const client = await connectClient('http', 'modern', { dbUrl: '', endpoint: server.endpoint });
      try {
        expect((await callJson(client, 'get', { table: 'customers', key: 1 })).isError).toBe(false);
      } finally {
        await client.close();
      }
    }
    const [first, second] = await Promise.all([scrape(port), scrape(port + 1)]);
    const calls = (f: Family[]) => total(f, 'mcp_server_tool_calls_total', { gen_ai_tool_name: 'get', outcome: 'ok' });
    expect(calls(first!) + calls(second!)).toBe(6);
    const instance = (f: Family[]) => f.find((x) => x.name === 'target_info')?.samples[0]?.labels.service_instance_id;
    expect(instance(first!)).toBeDefined();
    expect(instance(first!)).not.toBe(instance(second!));

    // A worker that dies is replaced on its port: both ports answer again, one of them a new process.
    const before = [instance(first!), instance(second!)];
    const { stdout } = await run('pgrep', ['-P', String(server.process.pid)]);
    const worker = Number(stdout.trim().split('\n')[0]);
    expect(worker).toBeGreaterThan(0);
    process.kill(worker, 'SIGKILL');
    let after: (string | undefined)[] = before;
    for (let i = 0; i < 100 && after.filter((id, n) => id !== undefined && id !== before[n]).length !== 1; i++) {
      await sleep(200);
      after = await Promise.all(
        [port, port + 1].map((p) =>
          fetch(`http://127.0.0.1:${p}/metrics`).then(
            async (r) => instance(await parse(await r.text())),
            () => undefined,
          ),
        ),
      );
    }
    expect(server.stderr()).toMatch(new RegExp(`worker ${worker} exited \\(SIGKILL\\); starting another`));
    expect(after.every((id) => id !== undefined)).toBe(true);
    expect(after.filter((id, n) => id !== before[n])).toHaveLength(1);
  }, 60_000);
});

describe('a taken port', () => {
  it('stops the start with a message naming it (no server without its metrics)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-prom-taken-'));
    const holder = createServer();
    try {
      const url = `sqlite:${join(dir, 'shop.db')}`;
      await loadShop(url);
      const port = await freePort();
      await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
      const started = run(process.execPath, [BIN, '--url', url, '--http', '--port', '0', '--workers', '1'], {
        env: { ...process.env, ...prometheusEnv(port) },
        timeout: 30_000,
      });
      await expect(started).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`cannot listen on 127.0.0.1:${port} (EADDRINUSE)`),
      });
    } finally {
      holder.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
