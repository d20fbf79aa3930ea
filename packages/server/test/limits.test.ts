import { request } from 'node:http';
import { freshDatabase } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/** Every limit, exceeded once: each gives a clear error (or an explicit `truncated`), and the server goes on. */
describe('limits', () => {
  let server: HttpServer;
  let client: Client;

  beforeAll(async () => {
    const dbUrl = await freshDatabase({ engine: 'sqlite', baseUrl: 'sqlite:' }, 'bench_limits');
    await loadShop(dbUrl);
    server = await startHttpServer(dbUrl, ['--max-rows', '20', '--default-rows', '5', '--max-response-bytes', '2000']);
    client = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const error = async (name: string, args: Record<string, unknown>) => {
    const outcome = await callJson(client, name, args);
    expect(outcome.isError, JSON.stringify(outcome.data)).toBe(true);
    return (outcome.data as { error: { code: string; message: string } }).error;
  };

  it('caps rows and says so', async () => {
    const byDefault = await callJson(client, 'query', { table: 'orders', columns: ['id'] });
    expect((byDefault.data as { rows: unknown[] }).rows).toHaveLength(5);
    const capped = await callJson(client, 'query', { table: 'orders', columns: ['id'], limit: 1_000 });
    expect(capped.data).toMatchObject({ truncated: true });
    expect((capped.data as { rows: unknown[] }).rows).toHaveLength(20);
  });

  it('refuses a result larger than --max-response-bytes, naming the way out', async () => {
    const big = await error('query', { table: 'orders', limit: 20 });
    expect(big.code).toBe('limit_exceeded');
    expect(big.message).toMatch(/bytes of JSON, more than the server's limit of 2000; ask for fewer rows/);
    const small = await callJson(client, 'query', { table: 'orders', columns: ['id'], limit: 20 });
    expect(small.isError).toBe(false);
  });

  it('refuses filters past their depth, length and list bounds', async () => {
    const deep = `${'('.repeat(40)}id = 1${')'.repeat(40)}`;
    expect((await error('query', { table: 'orders', filter: deep })).code).toBe('invalid_filter');
    let tree: Record<string, unknown> = { column: 'id', op: '=', value: 1 };
    for (let i = 0; i < 40; i++) tree = { not: tree };
    expect((await error('query', { table: 'orders', filter: tree })).code).toBe('invalid_filter');
    const long = `note = '${'x'.repeat(9_000)}'`;
    expect((await error('query', { table: 'orders', filter: long })).code).toBe('invalid_argument');
    const list = { column: 'id', op: 'in', value: Array.from({ length: 1_001 }, (_, i) => i) };
    expect((await error('query', { table: 'orders', filter: list })).code).toBe('invalid_filter');
  });

  it('answers 413 to a body over 4 MiB and keeps serving', async () => {
    // Declare the size and send only the start: the server must refuse on the declaration,
    // without reading (or buffering) the rest.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(server.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': String(5 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"');
    });
    expect(status).toBe(413);
    expect((await callJson(client, 'get', { table: 'orders', key: 1 })).isError).toBe(false);
  });
});
