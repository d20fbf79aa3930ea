import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, type LiveTarget, liveTargets } from '@mcp-db-bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from './support/agents.js';
import { callJson, connectClient, exitOf, type HttpServer, startHttpServer } from './support/mcp.js';
import { type PrivateServer, privateServerUnavailable, startPrivateServer } from './support/private-server.js';
import { loadShop } from './support/shop.js';

/**
 * The probe endpoints a Kubernetes Deployment or a load balancer uses: GET /livez (the process
 * serves) and GET /healthz (its database answers too), both without the bearer token and with
 * a Host the MCP endpoint would refuse (a pod's IP), answering nothing about the database.
 */

const TOKEN = 'health-test-token';

interface Answer {
  status: number;
  body: string;
}

/** A GET as a kubelet sends it: no token, the pod's IP as Host. */
function probe(
  endpoint: string,
  path: string,
  headers: Record<string, string> = { host: '10.1.2.3:7400' },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, endpoint), { method: 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(liveTargets())('$engine', (target: LiveTarget) => {
  let dir: string;
  let server: HttpServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-health-'));
    const url = target.baseUrl.endsWith(':')
      ? `${target.baseUrl}${join(dir, 'shop.db')}`
      : await freshDatabase(target, 'bench_health');
    await loadShop(url);
    server = await startHttpServer(url, ['--token', TOKEN]);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers /healthz and /livez 200 without the token, to any Host', async () => {
    expect(await probe(server.endpoint, '/healthz')).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(await probe(server.endpoint, '/livez')).toEqual({ status: 200, body: '{"status":"ok"}' });
  });

  it('still refuses the MCP endpoint without the token, and other methods or paths', async () => {
    expect((await probe(server.endpoint, '/mcp', {})).status).toBe(401);
    expect((await probe(server.endpoint, '/healthz/x')).status).toBe(404);
    expect((await probe(server.endpoint, '/metrics')).status).toBe(404);
  });
});

/**
 * The database goes away under a running server (a private PostgreSQL server the test stops):
 * /healthz turns 503 with a reason naming no host or user, /livez stays 200 (a restart would
 * not help), the process keeps running, and /healthz is 200 again once the database is back.
 */
const unavailable = privateServerUnavailable('postgres');
if (unavailable) console.warn(`health.test: skipping the outage: ${unavailable}`);

describe.skipIf(unavailable)('a database outage', () => {
  let database: PrivateServer;
  let dbUrl: string;
  let server: HttpServer;

  beforeAll(async () => {
    database = await startPrivateServer('postgres');
    dbUrl = await freshDatabase({ engine: 'postgres', baseUrl: database.baseUrl }, 'bench_health');
    await loadShop(dbUrl);
    server = await startHttpServer(dbUrl, ['--pool-size', '2']);
  });
  afterAll(async () => {
    await server?.stop();
    await database?.destroy();
  });

  it('turns /healthz to 503 and back, while /livez and the process stay up', async () => {
    expect((await probe(server.endpoint, '/healthz')).status).toBe(200);
    await database.stop();

    const down = await probe(server.endpoint, '/healthz');
    expect(down.status).toBe(503);
    const body = JSON.parse(down.body) as { status: string; reason: string };
    expect(body.status).toBe('unavailable');
    expect(body.reason).toMatch(/^the database (check failed|did not answer within \d+ ms)$/);
    const { port, username } = new URL(dbUrl);
    expect(down.body).not.toContain(port);
    expect(down.body).not.toContain(username);
    expect(await probe(server.endpoint, '/livez')).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(exitOf(server.process)).toBeUndefined();

    await database.start();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await probe(server.endpoint, '/healthz')).status;
      if (status !== 200) await sleep(200);
    }
    expect(status).toBe(200);
    const client = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
    try {
      const answer = await callJson(client, 'get', { table: 'orders', key: 1 });
      expect(answer.isError, JSON.stringify(answer.data)).toBe(false);
    } finally {
      await client.close();
    }
  });
});
