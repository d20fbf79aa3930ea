import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, type HttpServer, MODERN_REVISION, modernRequest, startHttpServer } from './support/mcp.js';

/**
 * The Streamable HTTP endpoint of the built bin, spoken to with raw HTTP: the DNS-rebinding
 * guards (Host, Origin), the bearer token, the single /mcp path and what malformed requests
 * get back. Status codes and JSON-RPC error codes asserted here were observed against the
 * SDK in use and are pinned on purpose: a change in them is a change users see.
 *
 * Requests go through the global fetch (undici) except where fetch cannot express them:
 * it always derives `Host` from the URL, and it always sends the body it declares, so
 * `Host` overrides and a declared-but-unsent oversized body use node:http instead.
 */

const LEGACY_REVISION = '2025-11-25';
const ACCEPT = 'application/json, text/event-stream';

interface RawRequest {
  headers: Record<string, string>;
  body: string;
}

/** A 2025-11-25 `initialize`, which the stateless legacy fallback answers on its own. */
function legacyInitialize(id: number | string = 1): RawRequest {
  return {
    headers: { accept: ACCEPT, 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY_REVISION,
        capabilities: {},
        clientInfo: { name: 'http-test', version: '0.0.0' },
      },
    }),
  };
}

interface Reply {
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  contentType: string;
  text: string;
}

async function post(url: string, req: RawRequest, extraHeaders: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(url, { method: 'POST', headers: { ...req.headers, ...extraHeaders }, body: req.body });
  return {
    status: res.status,
    headers: res.headers,
    contentType: res.headers.get('content-type') ?? '',
    text: await res.text(),
  };
}

/** node:http, for what fetch will not send: a `Host` header of our choosing, or a body shorter than declared. */
function rawPost(url: string, headers: Record<string, string>, body: string | undefined): Promise<Reply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          req.destroy();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            contentType: res.headers['content-type'] ?? '',
            text,
          });
        });
      },
    );
    req.on('error', reject);
    if (body === undefined) req.flushHeaders();
    else req.end(body);
  });
}

interface JsonRpcMessage {
  jsonrpc?: string;
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The one JSON-RPC message of a reply, whether sent as JSON or as a single SSE event. */
function message(reply: Reply): JsonRpcMessage {
  if (reply.contentType.startsWith('text/event-stream')) {
    const data = reply.text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim());
    expect(data, reply.text).toHaveLength(1);
    return JSON.parse(data[0]!) as JsonRpcMessage;
  }
  expect(reply.contentType).toMatch(/^application\/json/);
  return JSON.parse(reply.text) as JsonRpcMessage;
}

const toolNames = (msg: JsonRpcMessage) => ((msg.result?.tools ?? []) as { name: string }[]).map((t) => t.name).sort();
const TOOLS = ['aggregate', 'describe_table', 'get', 'list_tables', 'query'];

let dir = '';
let dbUrl = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-http-'));
  const file = join(dir, 'tiny.db');
  const db = new Database(file);
  db.exec(
    "create table items (id integer primary key, label text not null); insert into items (label) values ('one'), ('two');",
  );
  db.close();
  dbUrl = `sqlite:${file}`;
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('without a token (loopback)', () => {
  let server: HttpServer;
  let endpoint = '';

  beforeAll(async () => {
    server = await startHttpServer(dbUrl);
    endpoint = server.endpoint;
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** A valid modern tools/list, used after each bad request to show the server is still serving. */
  async function stillServes(): Promise<void> {
    expect(exitOf(server.process)).toBeUndefined();
    const reply = await post(endpoint, modernRequest('tools/list', 'after'));
    expect(reply.status).toBe(200);
    const msg = message(reply);
    expect(msg.id).toBe('after');
    expect(toolNames(msg)).toEqual(TOOLS);
  }

  it('listens on 127.0.0.1 at /mcp', () => {
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('answers a 2026-07-28 tools/list with the five tools, as plain JSON', async () => {
    const reply = await post(endpoint, modernRequest('tools/list', 7));
    expect(reply.status).toBe(200);
    expect(reply.contentType).toMatch(/^application\/json/);
    const msg = message(reply);
    expect(msg.id).toBe(7);
    expect(msg.error).toBeUndefined();
    expect(toolNames(msg)).toEqual(TOOLS);
  });

  it('answers a 2025-11-25 initialize with its result', async () => {
    const reply = await post(endpoint, legacyInitialize(3));
    expect(reply.status).toBe(200);
    const msg = message(reply);
    expect(msg.id).toBe(3);
    expect(msg.result?.protocolVersion).toBe(LEGACY_REVISION);
    expect(msg.result?.serverInfo).toMatchObject({ name: 'mcp-db-server' });
  });

  it('rejects a modern request missing its Mcp-Method header (400, -32020)', async () => {
    const req = modernRequest('tools/list');
    const { 'mcp-method': _dropped, ...headers } = req.headers;
    const reply = await post(endpoint, { headers, body: req.body });
    expect(reply.status).toBe(400);
    const msg = message(reply);
    expect(msg.result).toBeUndefined();
    expect(msg.error?.code).toBe(-32020);
    expect(msg.error?.message).toContain('Mcp-Method');
  });

  it('refuses JSON nested deeper than 256 levels before parsing it (400, -32700), and serves 250', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const base = era === 'modern' ? modernRequest('tools/list') : legacyInitialize();
      const deep = (n: number) => base.body.replace('"params":{', `"params":{"x":${'['.repeat(n)}${']'.repeat(n)},`);
      const refused = await post(endpoint, { headers: base.headers, body: deep(100_000) });
      expect(refused.status).toBe(400);
      expect(message(refused).error).toEqual({
        code: -32700,
        message: 'Parse error: JSON nested deeper than 256 levels',
      });
      const served = await post(endpoint, { headers: base.headers, body: deep(250) });
      expect(served.status, `${era}: ${JSON.stringify(message(served))}`).toBe(200);
    }
  });

  describe('DNS-rebinding protection', () => {
    it('refuses a Host header that is not loopback with 403 and no result', async () => {
      const req = legacyInitialize();
      const reply = await rawPost(endpoint, { ...req.headers, host: 'evil.example' }, req.body);
      expect(reply.status).toBe(403);
      const msg = message(reply);
      expect(msg.result).toBeUndefined();
      expect(msg.error?.message).toBe('Invalid Host: evil.example');
    });

    it('refuses a non-loopback Host even with a port, and a name not passed to --allowed-hosts', async () => {
      const req = modernRequest('tools/list');
      for (const host of ['evil.example:80', 'mcp.internal']) {
        const reply = await rawPost(endpoint, { ...req.headers, host }, req.body);
        expect(reply.status, host).toBe(403);
        expect(message(reply).result).toBeUndefined();
      }
    });

    it('accepts the loopback Host names', async () => {
      const { port } = new URL(endpoint);
      const req = modernRequest('tools/list');
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
        const reply = await rawPost(endpoint, { ...req.headers, host }, req.body);
        expect(reply.status, host).toBe(200);
        expect(toolNames(message(reply))).toEqual(TOOLS);
      }
    });

    it('refuses a foreign Origin with 403 and no result', async () => {
      const reply = await post(endpoint, modernRequest('tools/list'), { origin: 'http://evil.example' });
      expect(reply.status).toBe(403);
      const msg = message(reply);
      expect(msg.result).toBeUndefined();
      expect(msg.error?.message).toBe('Invalid Origin: evil.example');
    });

    it('accepts a loopback Origin on any port', async () => {
      const reply = await post(endpoint, modernRequest('tools/list'), { origin: 'http://localhost:1234' });
      expect(reply.status).toBe(200);
      expect(toolNames(message(reply))).toEqual(TOOLS);
    });

    it('judges every request: accepted values are remembered, refused ones are refused each time', async () => {
      const { port } = new URL(endpoint);
      const req = modernRequest('tools/list');
      for (let round = 0; round < 2; round++) {
        expect((await rawPost(endpoint, { ...req.headers, host: `localhost:${port}` }, req.body)).status).toBe(200);
        expect((await rawPost(endpoint, { ...req.headers, host: 'evil.example' }, req.body)).status).toBe(403);
        expect((await post(endpoint, req, { origin: 'http://localhost:1234' })).status).toBe(200);
        expect((await post(endpoint, req, { origin: 'http://evil.example' })).status).toBe(403);
      }
    });
  });

  describe('paths', () => {
    it('answers any path but /mcp with 404 and a JSON body naming /mcp', async () => {
      const base = new URL(endpoint);
      for (const path of ['/', '/mcp/', '/mcp/extra', '/sse', '/MCP']) {
        const reply = await post(new URL(path, base).toString(), modernRequest('tools/list'));
        expect(reply.status, path).toBe(404);
        expect(reply.contentType).toMatch(/^application\/json/);
        expect(JSON.parse(reply.text)).toEqual({ error: 'not found: the MCP endpoint is /mcp' });
      }
    });

    it('ignores a query string on /mcp', async () => {
      const reply = await post(`${endpoint}?client=test`, modernRequest('tools/list'));
      expect(reply.status).toBe(200);
      expect(toolNames(message(reply))).toEqual(TOOLS);
    });

    it('answers GET on /mcp with 405 and Allow: POST, DELETE (no standalone SSE stream)', async () => {
      const res = await fetch(endpoint, { headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, DELETE');
      await res.text();
      await stillServes();
    });
  });

  describe('malformed requests', () => {
    it('invalid JSON: 400 with a JSON-RPC parse error (-32700)', async () => {
      const reply = await post(endpoint, {
        headers: modernRequest('tools/list').headers,
        body: '{"jsonrpc": "2.0", "id": 1,',
      });
      expect(reply.status).toBe(400);
      const msg = message(reply);
      expect(msg.error?.code).toBe(-32700);
      expect(msg.id).toBeNull();
      await stillServes();
    });

    it('an empty body: 400, parse error (-32700)', async () => {
      const reply = await post(endpoint, { headers: legacyInitialize().headers, body: '' });
      expect(reply.status).toBe(400);
      expect(message(reply).error?.code).toBe(-32700);
      await stillServes();
    });

    it('JSON that is not JSON-RPC: 400, invalid request (-32600)', async () => {
      const reply = await post(endpoint, { headers: legacyInitialize().headers, body: '{"hello":"world"}' });
      expect(reply.status).toBe(400);
      expect(message(reply).error?.code).toBe(-32600);
      await stillServes();
    });

    it('an unknown method in the 2026-07-28 era: HTTP 404 carrying JSON-RPC method not found (-32601)', async () => {
      const reply = await post(endpoint, modernRequest('tables/drop', 9));
      expect(reply.status).toBe(404);
      const msg = message(reply);
      expect(msg.id).toBe(9);
      expect(msg.result).toBeUndefined();
      expect(msg.error?.code).toBe(-32601);
      await stillServes();
    });

    it('an unknown method in the 2025-11-25 era: HTTP 200 with a JSON-RPC method-not-found error (-32601)', async () => {
      const reply = await post(endpoint, {
        headers: { accept: ACCEPT, 'content-type': 'application/json', 'mcp-protocol-version': LEGACY_REVISION },
        body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tables/drop' }),
      });
      expect(reply.status).toBe(200);
      const msg = message(reply);
      expect(msg.id).toBe(10);
      expect(msg.result).toBeUndefined();
      expect(msg.error?.code).toBe(-32601);
      await stillServes();
    });

    it('a wrong Content-Type: 415', async () => {
      const req = legacyInitialize();
      const reply = await post(endpoint, { headers: { ...req.headers, 'content-type': 'text/plain' }, body: req.body });
      expect(reply.status).toBe(415);
      const msg = message(reply);
      expect(msg.result).toBeUndefined();
      expect(msg.error?.message).toMatch(/Unsupported Media Type/);
      await stillServes();
    });

    it('an Accept without text/event-stream: 406', async () => {
      const req = legacyInitialize();
      const reply = await post(endpoint, { headers: { ...req.headers, accept: 'application/json' }, body: req.body });
      expect(reply.status).toBe(406);
      expect(message(reply).result).toBeUndefined();
      await stillServes();
    });

    it('a body declared over 4 MiB: 413 before it is read, and the connection is closed', async () => {
      // Only the headers are sent: the server must refuse on Content-Length alone.
      const req = modernRequest('tools/list');
      const reply = await rawPost(
        endpoint,
        { ...req.headers, 'content-length': String(4 * 1024 * 1024 + 1) },
        undefined,
      );
      expect(reply.status).toBe(413);
      expect((reply.headers as Record<string, string>).connection).toBe('close');
      const msg = message(reply);
      expect(msg.result).toBeUndefined();
      expect(msg.error?.message).toBe('Payload Too Large: Request body must not exceed 4194304 bytes');
      await stillServes();
    });

    it('a body just under 4 MiB is still served', async () => {
      const req = modernRequest('tools/list', 'big', { padding: 'x'.repeat(4 * 1024 * 1024 - 1024) });
      expect(Buffer.byteLength(req.body)).toBeLessThan(4 * 1024 * 1024);
      const reply = await post(endpoint, req);
      expect(reply.status).toBe(200);
      expect(toolNames(message(reply))).toEqual(TOOLS);
      await stillServes();
    });
  });
});

describe('with --token', () => {
  const TOKEN = 's3cret';
  let server: HttpServer;
  let endpoint = '';

  beforeAll(async () => {
    server = await startHttpServer(dbUrl, ['--token', TOKEN]);
    endpoint = server.endpoint;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers a request without Authorization with 401 and WWW-Authenticate: Bearer', async () => {
    const reply = await post(endpoint, modernRequest('tools/list'));
    expect(reply.status).toBe(401);
    expect((reply.headers as Headers).get('www-authenticate')).toBe('Bearer');
    expect(JSON.parse(reply.text)).toEqual({ error: 'missing or wrong bearer token' });
  });

  it('answers a wrong token, a prefix of the token and another scheme with 401', async () => {
    for (const authorization of ['Bearer wrong', 'Bearer s3cre', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
      const reply = await post(endpoint, modernRequest('tools/list'), { authorization });
      expect(reply.status, authorization).toBe(401);
      expect((reply.headers as Headers).get('www-authenticate')).toBe('Bearer');
      expect(reply.text).not.toContain('list_tables');
    }
  });

  it('serves the right token, in either era', async () => {
    const modernReply = await post(endpoint, modernRequest('tools/list'), { authorization: `Bearer ${TOKEN}` });
    expect(modernReply.status).toBe(200);
    expect(toolNames(message(modernReply))).toEqual(TOOLS);
    const legacyReply = await post(endpoint, legacyInitialize(), { authorization: `Bearer ${TOKEN}` });
    expect(legacyReply.status).toBe(200);
    expect(message(legacyReply).result?.protocolVersion).toBe(LEGACY_REVISION);
  });

  it('still checks Host before the token', async () => {
    const req = modernRequest('tools/list');
    const reply = await rawPost(
      endpoint,
      { ...req.headers, host: 'evil.example', authorization: `Bearer ${TOKEN}` },
      req.body,
    );
    expect(reply.status).toBe(403);
  });

  it('lets the SDK client list and call tools with the token, and not without it', async () => {
    const withToken = new Client(
      { name: 'http-test', version: '0.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    await withToken.connect(
      new StreamableHTTPClientTransport(new URL(endpoint), {
        requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      const { tools } = await withToken.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
      const result = await withToken.callTool({ name: 'list_tables', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toContain('items');
    } finally {
      await withToken.close();
    }

    const without = new Client(
      { name: 'http-test', version: '0.0.0' },
      { versionNegotiation: { mode: { pin: MODERN_REVISION } } },
    );
    const attempt = (async () => {
      await without.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
      return without.listTools();
    })();
    await expect(attempt).rejects.toThrow();
    await without.close().catch(() => {});
  });
});

describe('with --allowed-hosts', () => {
  let server: HttpServer;
  let endpoint = '';

  beforeAll(async () => {
    server = await startHttpServer(dbUrl, ['--allowed-hosts', 'mcp.internal, proxy.local']);
    endpoint = server.endpoint;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('accepts each listed Host name', async () => {
    const req = modernRequest('tools/list');
    for (const host of ['mcp.internal', 'mcp.internal:8443', 'proxy.local']) {
      const reply = await rawPost(endpoint, { ...req.headers, host }, req.body);
      expect(reply.status, host).toBe(200);
      expect(toolNames(message(reply))).toEqual(TOOLS);
    }
  });

  it('accepts a listed Origin', async () => {
    const reply = await post(endpoint, modernRequest('tools/list'), { origin: 'https://mcp.internal' });
    expect(reply.status).toBe(200);
  });

  it('still refuses other names', async () => {
    const req = modernRequest('tools/list');
    const reply = await rawPost(endpoint, { ...req.headers, host: 'evil.example' }, req.body);
    expect(reply.status).toBe(403);
    const viaOrigin = await post(endpoint, req, { origin: 'http://evil.example' });
    expect(viaOrigin.status).toBe(403);
  });
});
