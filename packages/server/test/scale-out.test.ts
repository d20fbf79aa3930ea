import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * Several separate server processes behind a load balancer that routes each request to the
 * next one in turn (no stickiness), as a Kubernetes Service spreads connections over pods: the
 * modern era needs nothing; a 2025-era session needs every server to honour every session id,
 * which they do when given the same --session-key, and which they refuse (404) without it.
 */

const KEY = 'scale-out-test-key-0123456789abcdef0123456789';

interface Hop {
  upstream: number;
  method: string;
  status: number;
}

/** A round-robin HTTP proxy: request i goes to upstream i mod n, each on its own connection. */
async function roundRobin(upstreams: string[]): Promise<{ url: string; hops: Hop[]; close(): Promise<void> }> {
  const hops: Hop[] = [];
  let next = 0;
  const proxy: Server = createServer((req, res) => {
    const upstream = next++ % upstreams.length;
    const target = new URL(upstreams[upstream]!);
    const headers = { ...req.headers, host: target.host };
    const out = request(target, { method: req.method, headers, agent: false }, (answer) => {
      hops.push({ upstream, method: req.method!, status: answer.statusCode! });
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    out.on('error', (error) => res.writeHead(502).end(error.message));
    req.pipe(out);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    hops,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

/** Five reads of known rows, in order, each checked. */
async function reads(client: Client): Promise<void> {
  for (let key = 1; key <= 5; key++) {
    const answer = await callJson(client, 'get', { table: 'orders', key });
    expect(answer.isError, JSON.stringify(answer.data)).toBe(false);
    expect((answer.data as { row: { id: number } }).row.id).toBe(key);
  }
}

describe('two servers behind a round-robin load balancer', () => {
  let dir: string;
  let url: string;
  const servers: HttpServer[] = [];

  const start = async (args: string[] = [], env?: Record<string, string>) => {
    const server = await startHttpServer(url, args, env);
    servers.push(server);
    return server.endpoint;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-scale-out-'));
    url = `sqlite:${join(dir, 'shop.db')}`;
    await loadShop(url);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the modern era from both with no shared state', async () => {
    const balancer = await roundRobin([await start(), await start()]);
    const client = await connectClient('http', 'modern', { dbUrl: url, endpoint: balancer.url });
    try {
      await reads(client);
    } finally {
      await client.close();
      await balancer.close();
    }
    expect(new Set(balancer.hops.map((h) => h.upstream))).toEqual(new Set([0, 1]));
    expect(balancer.hops.filter((h) => h.status !== 200)).toEqual([]);
  });

  it('carries a 2025-era session across both when they share --session-key (one of them a --workers server)', async () => {
    // The key by its variable on one (a --workers primary, which must pass it on, not make its own), by the flag on the other.
    const a = await start(['--workers', '2'], { MCP_DB_SESSION_KEY: KEY });
    const b = await start(['--session-key', KEY]);
    const balancer = await roundRobin([a, b]);
    const client = await connectClient('http', 'legacy', { dbUrl: url, endpoint: balancer.url });
    const transport = client.transport as StreamableHTTPClientTransport;
    try {
      expect(transport.sessionId).toBeDefined();
      await reads(client);
    } finally {
      await client.close();
      await balancer.close();
    }
    // initialize, the initialized notification and five calls: every request after the first named the session.
    expect(balancer.hops.length).toBeGreaterThanOrEqual(7);
    expect(new Set(balancer.hops.map((h) => h.upstream))).toEqual(new Set([0, 1]));
    // The SDK asks once for a server-to-client stream (GET), which this server does not offer (405, by design).
    expect(balancer.hops.filter((h) => h.status >= 300 && !(h.method === 'GET' && h.status === 405))).toEqual([]);
  });

  it('without a shared key, the server that did not issue the session answers 404 Session not found', async () => {
    const balancer = await roundRobin([await start(), await start()]);
    try {
      const connected = connectClient('http', 'legacy', { dbUrl: url, endpoint: balancer.url }).then(reads);
      await expect(connected).rejects.toThrow(/404|Session not found/);
    } finally {
      await balancer.close();
    }
    expect(balancer.hops[0]).toMatchObject({ upstream: 0, status: 200 });
    expect(balancer.hops[1]).toMatchObject({ upstream: 1, status: 404 });
  });

  it('ends a session (DELETE) only on the server that got the DELETE: the others honour it until it idles out', async () => {
    const balancer = await roundRobin([await start(['--session-key', KEY]), await start(['--session-key', KEY])]);
    const client = await connectClient('http', 'legacy', { dbUrl: url, endpoint: balancer.url });
    const transport = client.transport as StreamableHTTPClientTransport;
    try {
      const id = transport.sessionId!;
      await transport.terminateSession();
      const deleted = balancer.hops.find((h) => h.method === 'DELETE')!;
      expect(deleted).toMatchObject({ method: 'DELETE', status: 200 });
      // The same id, sent straight to each server: refused where it was ended, honoured where it was not.
      const ping = async (endpoint: string) =>
        (
          await fetch(endpoint, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': '2025-11-25',
              'mcp-session-id': id,
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
          })
        ).status;
      const endpoints = servers.slice(-2).map((s) => s.endpoint);
      expect(await ping(endpoints[deleted.upstream]!)).toBe(404);
      expect(await ping(endpoints[1 - deleted.upstream]!)).toBe(200);
    } finally {
      await client.close();
      await balancer.close();
    }
  });
});
