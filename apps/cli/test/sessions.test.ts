import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seed } from '@mcp-db-bench/dataset';
import { createClient, runStep, startAgent, WORKLOADS } from '@mcp-db-bench/loadgen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../src/serving/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-sessions-'));
const dbUrl = `sqlite:${join(dir, 'bench.db')}`;

beforeAll(async () => {
  await seed({ url: dbUrl, scale: 0.001, seed: 1, indexes: 'optimized', force: false });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Our clients end the 2025-era sessions they replace: a benchmark that starts sessions over and
 * over (the session-init workload) must not fill the server's session table, which would then
 * refuse every new session. The SDK client ends each one as it opens the next; the lean client
 * ends them in batches of 64, so here the server keeps 70 and sees 200 session starts.
 */
describe('session starts repeated on one client', () => {
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServer(dbUrl, ['--max-sessions', '70']);
  });

  afterAll(async () => {
    await server?.stop();
  });

  for (const kind of ['lean', 'sdk'] as const) {
    it(`${kind}: 200 session starts on one client against a limit of 70, none refused`, async () => {
      const client = createClient({ kind: 'http', url: server.endpoint }, { client: kind, protocol: 'legacy' });
      try {
        for (let i = 0; i < 200; i++) {
          const { era } = await client.open();
          expect(era).toBe('legacy');
          const answer = await client.callTool('list_tables', {});
          expect(answer.isError).toBe(false);
        }
      } finally {
        await client.close();
      }
    });
  }
});

/** A pass-through to the server that counts what the agents send: JSON-RPC methods, and other HTTP methods by name. */
async function countingProxy(
  target: string,
): Promise<{ url: string; count(what: string): number; close(): Promise<void> }> {
  const counts = new Map<string, number>();
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const what =
        req.method === 'POST' ? String((JSON.parse(body.toString()) as { method?: unknown }).method) : req.method!;
      counts.set(what, (counts.get(what) ?? 0) + 1);
      const out = request(
        { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    count: (what) => counts.get(what) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The session-churn workload, through a proxy that counts what reaches the server: each
 * operation is a new session (initialize, or discover on 2026-07-28), tools/list and three calls,
 * and no session is ever ended: not between operations, not when the step closes its agents.
 */
describe('session-churn walks away from every session', () => {
  let server: ServerProcess;
  const AGENTS = 2;
  const workload = WORKLOADS['session-churn']!;

  beforeAll(async () => {
    server = await startServer(dbUrl);
  });

  afterAll(async () => {
    await server?.stop();
  });

  const cases = [
    { client: 'lean', protocol: 'legacy', start: 'initialize' },
    { client: 'sdk', protocol: 'legacy', start: 'initialize' },
    { client: 'lean', protocol: 'modern', start: 'server/discover' },
  ] as const;

  for (const { client, protocol, start } of cases) {
    it(`${client} client, ${protocol} protocol: a ${start} per operation, no DELETE`, async () => {
      const proxy = await countingProxy(server.endpoint);
      try {
        const step = await runStep({
          agents: AGENTS,
          mode: 'closed',
          warmupMs: 0,
          durationMs: 400,
          makeAgent: (i) =>
            startAgent(workload, createClient({ kind: 'http', url: proxy.url }, { client, protocol }), 7, i),
        });
        expect(step.errors).toEqual({});
        expect(step.calls).toBeGreaterThan(0);
        expect(Object.keys(step.operations)).toEqual(['session-churn']);
        expect(step.reinitialized).toBe(0);
        // each agent's unmeasured discovery, then one session per operation
        expect(proxy.count(start)).toBe(AGENTS + step.calls);
        expect(proxy.count('tools/list')).toBe(AGENTS + step.calls);
        expect(proxy.count('tools/call')).toBeGreaterThanOrEqual(3 * step.calls);
        expect(proxy.count('initialize')).toBe(protocol === 'legacy' ? AGENTS + step.calls : 0);
        expect(proxy.count('DELETE')).toBe(0);
      } finally {
        await proxy.close();
      }
    }, 60_000);
  }
});
