import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BothPaths, bothPaths } from './support/both-paths.js';
import { MODERN_REVISION, modernEnvelope } from './support/mcp.js';

/**
 * The HTTP fast path against the SDK, answer for answer: the same requests go to a server with
 * the fast path and to one without it (every request through the SDK), and must get the same
 * status and the same JSON. The fast path answers with a fixed Content-Length where the SDK
 * streams (chunked), which shows which of the two answered.
 */

const ENVELOPE = modernEnvelope('fast-path-test');

interface Case {
  what: string;
  body: Record<string, unknown> | string;
  headers?: Record<string, string | undefined>;
  /** whether the fast path should answer it (otherwise the SDK does, on both servers) */
  fast: boolean;
}

const call = (name: string, args?: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args && { arguments: args }), _meta: ENVELOPE },
});
const plain = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: ENVELOPE },
});

const CASES: Case[] = [
  { what: 'get, found', body: call('get', { table: 'orders', key: 3 }), fast: true },
  { what: 'get, not found, string id', body: call('get', { table: 'orders', key: 999_999 }, 'abc'), fast: true },
  { what: 'get, wrong key type (a tool error)', body: call('get', { table: 'orders', key: 'x' }), fast: true },
  { what: 'get, argument failing the schema', body: call('get', { table: 7 }), fast: true },
  { what: 'get, no arguments', body: call('get'), fast: true },
  {
    what: 'query by foreign key',
    body: call('query', { table: 'orders', filter: 'customer_id = 2', limit: 5 }),
    fast: true,
  },
  { what: 'list_tables', body: call('list_tables', {}), fast: true },
  { what: 'describe_table', body: call('describe_table', { table: 'order_items' }), fast: true },
  { what: 'describe_table, unknown table', body: call('describe_table', { table: 'nope' }), fast: true },
  { what: 'echo', body: call('echo', { message: 'ping' }), fast: true },
  { what: 'tools/list', body: plain('tools/list'), fast: true },
  { what: 'server/discover', body: plain('server/discover', {}, 9), fast: true },
  { what: 'unknown tool', body: call('drop_everything', {}), fast: false },
  {
    what: 'arguments not an object',
    body: { ...call('get'), params: { name: 'get', arguments: [1], _meta: ENVELOPE } },
    fast: false,
  },
  { what: 'tools/list with a cursor', body: plain('tools/list', { cursor: 'abc' }), fast: false },
  {
    what: 'a progress token in _meta',
    body: {
      ...call('echo', { message: 'x' }),
      params: { name: 'echo', arguments: { message: 'x' }, _meta: { ...ENVELOPE, progressToken: 1 } },
    },
    fast: false,
  },
  {
    what: 'Mcp-Name disagreeing with the body',
    body: call('get', { table: 'orders', key: 1 }),
    headers: { 'mcp-name': 'query' },
    fast: false,
  },
  {
    what: 'Mcp-Name missing',
    body: call('get', { table: 'orders', key: 1 }),
    headers: { 'mcp-name': undefined },
    fast: false,
  },
  {
    what: 'MCP-Protocol-Version naming 2025-11-25',
    body: call('get', { table: 'orders', key: 1 }),
    headers: { 'mcp-protocol-version': '2025-11-25' },
    fast: false,
  },
  {
    what: 'an envelope naming an unknown revision',
    body: {
      ...call('echo', { message: 'x' }),
      params: {
        name: 'echo',
        arguments: { message: 'x' },
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      },
    },
    headers: { 'mcp-protocol-version': '2099-01-01' },
    fast: false,
  },
  {
    what: 'clientInfo without a version',
    body: {
      ...call('echo', { message: 'x' }),
      params: {
        name: 'echo',
        arguments: { message: 'x' },
        _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientInfo': { name: 'x' } },
      },
    },
    fast: false,
  },
  { what: 'a batch', body: [call('echo', { message: 'x' })] as never, fast: false },
  { what: 'not JSON', body: '{"jsonrpc": "2.0", ', fast: false },
  {
    what: 'a notification',
    body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, _meta: ENVELOPE } },
    fast: false,
  },
];

function headersFor(body: Case['body'], overrides: Case['headers'] = {}): Record<string, string> {
  const parsed = typeof body === 'string' || Array.isArray(body) ? undefined : body;
  const params = parsed?.params as { name?: string } | undefined;
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_REVISION,
    'mcp-method': (parsed?.method as string | undefined) ?? 'tools/call',
    ...(parsed?.method === 'tools/call' && { 'mcp-name': params?.name }),
    ...overrides,
  };
  return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
}

async function send(url: string, c: Case) {
  const res = await fetch(url, {
    method: 'POST',
    headers: headersFor(c.body, c.headers),
    body: typeof c.body === 'string' ? c.body : JSON.stringify(c.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    fixedLength: res.headers.get('content-length') !== null,
    json: text ? JSON.parse(text) : null,
  };
}

describe('the HTTP fast path answers exactly as the SDK does', () => {
  let servers: BothPaths;
  let fastUrl: string;
  let sdkUrl: string;

  beforeAll(async () => {
    servers = await bothPaths();
    fastUrl = servers.hotUrl;
    sdkUrl = servers.sdkUrl;
  });

  afterAll(() => servers?.close());

  for (const c of CASES) {
    it(`${c.what}: ${c.fast ? 'fast path' : 'left to the SDK'}, same answer`, async () => {
      const viaSdk = await send(sdkUrl, c);
      const viaFast = await send(fastUrl, c);
      expect(viaSdk.fixedLength && viaSdk.json !== null && viaSdk.status === 200).toBe(false);
      expect(viaFast.fixedLength).toBe(c.fast);
      expect(viaFast.status).toBe(viaSdk.status);
      expect(viaFast.json).toEqual(viaSdk.json);
    });
  }

  it('answers calls made while others are in flight, each with its own id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(fastUrl, { what: '', body: call('get', { table: 'orders', key: (i % 10) + 1 }, i), fast: true }),
      ),
    );
    answers.forEach((a, i) => {
      expect(a.fixedLength).toBe(true);
      expect(a.json.id).toBe(i);
      expect(a.json.result.structuredContent.row.id).toBe((i % 10) + 1);
    });
  });
});
