import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * A fleet that never ends its sessions (crashed agents, serverless invocations, clients that
 * never send DELETE) must not lock anyone out: 50 agents open sessions as fast as the server
 * answers, for a few seconds, while 4 established agents keep calling tools. The table is kept
 * small so the flood turns it over many times.
 */
const FLOODERS = 50;
const ESTABLISHED = 4;
const FLOOD_MS = 6_000;
const MAX_SESSIONS = 200;
/** The server's resident memory may grow this much over the flood (a session is about 150 bytes). */
const RSS_BOUND_MB = 80;

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

describe('a fleet that never ends its sessions', () => {
  let dir: string;
  let server: HttpServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fleet-'));
    const url = `sqlite:${join(dir, 'shop.db')}`;
    await loadShop(url);
    server = await startHttpServer(url, ['--max-sessions', String(MAX_SESSIONS)]);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`refuses no initialize from ${FLOODERS} agents while ${ESTABLISHED} established agents keep working`, {
    timeout: 30_000,
  }, async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fleet-test', version: '0' } },
    });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    // Warm the server before taking its memory, so the figure is the flood's and not start-up's.
    const warm = await connectClient('http', 'legacy', { dbUrl: '', endpoint: server.endpoint });
    for (let i = 0; i < 50; i++) await callJson(warm, 'get', { table: 'orders', key: 1 });
    await warm.close();
    const rssBefore = rssMb(server.process.pid!);

    const deadline = Date.now() + FLOOD_MS;
    const statuses = new Map<number, number>();
    let opened = 0;
    const flooder = async () => {
      while (Date.now() < deadline) {
        const response = await fetch(server.endpoint, { method: 'POST', headers, body: initialize });
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.headers.get('mcp-session-id')) opened++;
      }
    };

    // An established agent: a real SDK client calling tools back to back; a 404 (its session
    // ended) is answered by initializing again, at most once in a row, as a host does.
    const outcomes = { calls: 0, failed: 0, reinitialized: 0 };
    const established = async (n: number) => {
      let client: Client = await connectClient('http', 'legacy', { dbUrl: '', endpoint: server.endpoint });
      try {
        while (Date.now() < deadline) {
          const args = { table: 'orders', key: (outcomes.calls % 20) + 1 + n };
          let answer = await callJson(client, 'get', args).catch((error: Error) => error);
          if (answer instanceof Error && /404/.test(answer.message)) {
            outcomes.reinitialized++;
            await client.close();
            client = await connectClient('http', 'legacy', { dbUrl: '', endpoint: server.endpoint });
            answer = await callJson(client, 'get', args).catch((error: Error) => error);
          }
          outcomes.calls++;
          if (answer instanceof Error || answer.isError) outcomes.failed++;
        }
      } finally {
        await client.close();
      }
    };

    await Promise.all([
      ...Array.from({ length: FLOODERS }, flooder),
      ...Array.from({ length: ESTABLISHED }, (_, n) => established(n)),
    ]);
    const rssAfter = rssMb(server.process.pid!);

    expect([...statuses.keys()]).toEqual([200]);
    // The table turned over several times, so the least-recently-used path was exercised.
    expect(opened).toBeGreaterThan(3 * MAX_SESSIONS);
    expect(outcomes.calls).toBeGreaterThan(100);
    expect(outcomes.failed).toBe(0);
    // Established agents stay at the recent end of the table: none was pushed out.
    expect(outcomes.reinitialized).toBe(0);
    expect(
      rssAfter - rssBefore,
      `RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MB after ${opened} sessions`,
    ).toBeLessThan(RSS_BOUND_MB);
    // And the flood is over: a newcomer is served at once.
    const late = await connectClient('http', 'legacy', { dbUrl: '', endpoint: server.endpoint });
    expect((await callJson(late, 'get', { table: 'orders', key: 1 })).isError).toBe(false);
    await late.close();
  });
});

/**
 * With --workers, every worker keeps the server's one table in least-recently-used order: a
 * session used on one worker is used on all (Sessions.share). A client whose connection stays on
 * one worker while a flood turns the table over, then comes back on a connection the primary
 * handed to the other worker, keeps its session; a worker that kept its own order had pushed it
 * out, unused there, and answered 404 (issue 46).
 */
describe('a fleet that never ends its sessions, against --workers 2', () => {
  const WORKERS_MAX_SESSIONS = 2_000;
  let dir: string;
  let server: HttpServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fleet-workers-'));
    const url = `sqlite:${join(dir, 'shop.db')}`;
    await loadShop(url);
    server = await startHttpServer(url, ['--workers', '2', '--max-sessions', String(WORKERS_MAX_SESSIONS)]);
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One keep-alive connection of its own: its requests reach the worker the primary handed it to. */
  const connection = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: string, session?: string) =>
      new Promise<{ status: number; session?: string }>((resolve, reject) => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        };
        if (session) headers['mcp-session-id'] = session;
        const req = request(server.endpoint, { method: 'POST', headers, agent }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode!, session: res.headers['mcp-session-id'] as string | undefined }),
          );
        });
        req.on('error', reject);
        req.end(body);
      });
    return { post, close: () => agent.destroy() };
  };
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fleet-test', version: '0' } },
  });
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'get', arguments: { table: 'orders', key: 1 } },
  });
  /** The worker a session id names: its issuer. */
  const issuer = (id: string) => id.split('.')[0]!;

  it('keeps the session of a client that keeps calling on one worker, when it comes back on the other', {
    timeout: 60_000,
  }, async () => {
    // Connections until one lands on each worker (the session each opens names its worker).
    const byWorker = new Map<string, ReturnType<typeof connection>>();
    let kept: string | undefined;
    while (byWorker.size < 2) {
      const c = connection();
      const { session } = await c.post(initialize);
      if (byWorker.has(issuer(session!))) c.close();
      else byWorker.set(issuer(session!), c);
      kept ??= session;
    }
    const home = byWorker.get(issuer(kept!))!;
    const away = [...byWorker].find(([worker]) => worker !== issuer(kept!))![1];
    // Used on both workers, then only at home while 50 agents open three tables' worth of sessions.
    expect((await away.post(call, kept)).status).toBe(200);
    let opened = 0;
    let firstOfFlood: string | undefined;
    const target = 3 * WORKERS_MAX_SESSIONS;
    const flooder = async () => {
      const c = connection();
      while (opened < target) {
        const { session } = await c.post(initialize);
        firstOfFlood ??= session;
        if (session) opened++;
      }
      c.close();
    };
    let homeCalls = 0;
    const keepCalling = async () => {
      while (opened < target) {
        expect((await home.post(call, kept)).status).toBe(200);
        homeCalls++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await Promise.all([keepCalling(), ...Array.from({ length: FLOODERS }, flooder)]);
    expect(homeCalls).toBeGreaterThan(3);
    // The flood turned the table over: its first session was pushed out (by the worker that issued it).
    expect((await byWorker.get(issuer(firstOfFlood!))!.post(call, firstOfFlood)).status).toBe(404);
    // Yet the client that kept calling is served on the worker where it was not seen all along.
    expect((await away.post(call, kept)).status).toBe(200);
    expect((await home.post(call, kept)).status).toBe(200);
    for (const c of byWorker.values()) c.close();
  });
});
