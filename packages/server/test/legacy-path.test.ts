import { readFileSync } from 'node:fs';
import { HOST_REVISIONS } from '@mcp-db-bench/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Sessions, SHARE_MS } from '../src/transports/sessions.js';
import { type BothPaths, bothPaths } from './support/both-paths.js';

/**
 * The 2025-era hot path against the SDK, answer for answer, in every 2025 revision a host
 * speaks: the same requests go to a server with the hot path and to one without it (every
 * request through the SDK's stateless fallback) and must get the same status and the same
 * JSON-RPC message. The hot path answers with a fixed Content-Length where the SDK streams
 * (chunked), which shows which of the two answered. The header sets are those real hosts send
 * (fixtures/hosts/legacy-exchanges.json has them recorded); sessions are tested below.
 */

/** Sessions of real hosts, recorded by test/clients/capture-hosts.mjs. */
const HOSTS = JSON.parse(
  readFileSync(new URL('../../../fixtures/hosts/legacy-exchanges.json', import.meta.url), 'utf8'),
) as {
  clients: {
    name: string;
    version: string;
    exchanges: { request: { method: string; headers: Record<string, string>; body: string } }[];
  }[];
};
const REVISIONS = HOST_REVISIONS;
const ACCEPT = 'application/json, text/event-stream';

interface Case {
  what: string;
  body: unknown;
  headers?: Record<string, string | undefined>;
  /** whether the hot path should answer it (otherwise the SDK does, on both servers) */
  fast: boolean;
}

const rpc = (method: string, params?: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params !== undefined && { params }),
});
const call = (name: string, args?: Record<string, unknown>, id: number | string = 1, meta?: unknown) =>
  rpc('tools/call', { name, ...(args && { arguments: args }), ...(meta !== undefined && { _meta: meta }) }, id);
const initialize = (protocolVersion: string, extra: Record<string, unknown> = {}) =>
  rpc(
    'initialize',
    { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy-path-test', version: '0.0.0' }, ...extra },
    0,
  );

function cases(version: string): Case[] {
  return [
    { what: 'initialize', body: initialize(version), headers: { 'mcp-protocol-version': undefined }, fast: true },
    {
      what: 'initialize with the capabilities and identity a host sends',
      body: initialize(version, {
        capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
        clientInfo: { name: 'claude-ai', title: 'Claude', version: '0.1.0' },
      }),
      headers: { 'mcp-protocol-version': undefined },
      fast: true,
    },
    {
      what: 'initialize naming a revision the server does not serve',
      body: initialize('2099-01-01'),
      headers: { 'mcp-protocol-version': undefined },
      fast: true,
    },
    { what: 'notifications/initialized', body: { jsonrpc: '2.0', method: 'notifications/initialized' }, fast: true },
    { what: 'ping', body: rpc('ping'), fast: true },
    { what: 'ping with empty params', body: rpc('ping', {}, 'p'), fast: true },
    { what: 'tools/list', body: rpc('tools/list'), fast: true },
    { what: 'tools/list with empty params', body: rpc('tools/list', {}), fast: true },
    { what: 'tools/list with a progress token', body: rpc('tools/list', { _meta: { progressToken: 7 } }), fast: true },
    {
      what: 'tools/list without MCP-Protocol-Version',
      body: rpc('tools/list'),
      headers: { 'mcp-protocol-version': undefined },
      fast: true,
    },
    { what: 'get, found', body: call('get', { table: 'orders', key: 3 }), fast: true },
    { what: 'get, not found, string id', body: call('get', { table: 'orders', key: 999_999 }, 'abc'), fast: true },
    { what: 'get, wrong key type (a tool error)', body: call('get', { table: 'orders', key: 'x' }), fast: true },
    { what: 'get, argument failing the schema', body: call('get', { table: 7 }), fast: true },
    { what: 'get, no arguments', body: call('get'), fast: true },
    {
      what: 'get with a progress token (the Inspector sends one)',
      body: call('get', { table: 'orders', key: 2 }, 5, { progressToken: 5 }),
      fast: true,
    },
    {
      what: 'query by foreign key',
      body: call('query', { table: 'orders', filter: 'customer_id = 2', limit: 5 }),
      fast: true,
    },
    {
      what: 'query, unknown column (a tool error)',
      body: call('query', { table: 'orders', filter: 'nope = 1' }),
      fast: true,
    },
    { what: 'list_tables', body: call('list_tables', {}), fast: true },
    { what: 'describe_table', body: call('describe_table', { table: 'order_items' }), fast: true },
    { what: 'echo', body: call('echo', { message: 'ping' }), fast: true },
    {
      what: 'Accept without text/event-stream',
      body: call('get', { table: 'orders', key: 1 }),
      headers: { accept: 'application/json' },
      fast: false,
    },
    { what: 'no Accept', body: rpc('ping'), headers: { accept: undefined }, fast: false },
    {
      what: 'MCP-Protocol-Version the server does not serve',
      body: rpc('ping'),
      headers: { 'mcp-protocol-version': '2099-01-01' },
      fast: false,
    },
    {
      what: 'initialize without clientInfo',
      body: rpc('initialize', { protocolVersion: version, capabilities: {} }, 0),
      fast: false,
    },
    { what: 'unknown tool', body: call('drop_everything', {}), fast: false },
    { what: 'arguments not an object', body: rpc('tools/call', { name: 'get', arguments: [1] }), fast: false },
    { what: 'tools/list with a cursor', body: rpc('tools/list', { cursor: 'abc' }), fast: false },
    {
      what: 'a _meta with more than a progress token',
      body: call('echo', { message: 'x' }, 1, { progressToken: 1, other: true }),
      fast: false,
    },
    { what: 'resources/list (no such capability)', body: rpc('resources/list'), fast: false },
    { what: 'a batch', body: [call('echo', { message: 'x' })], fast: false },
    { what: 'not JSON', body: '{"jsonrpc": "2.0", ', fast: false },
    {
      what: 'notifications/cancelled',
      body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      fast: false,
    },
  ];
}

function headersFor(version: string, overrides: Case['headers'] = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': version,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The JSON-RPC message of an answer: the data of its one SSE event, or its JSON body. */
function messageOf(text: string, type: string | null): unknown {
  if (text === '') return null;
  if (type?.startsWith('text/event-stream')) {
    const events = text.split('\n\n').filter(Boolean);
    expect(events).toHaveLength(1);
    expect(events[0]!.startsWith('event: message\ndata: ')).toBe(true);
    return JSON.parse(events[0]!.slice('event: message\ndata: '.length));
  }
  return JSON.parse(text);
}

async function send(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    fixedLength: res.headers.get('content-length') !== null,
    session: res.headers.get('mcp-session-id'),
    message: messageOf(text, res.headers.get('content-type')),
  };
}

describe('the 2025-era hot path', () => {
  let servers: BothPaths;
  let hotUrl: string;
  let sdkUrl: string;

  beforeAll(async () => {
    servers = await bothPaths();
    hotUrl = servers.hotUrl;
    sdkUrl = servers.sdkUrl;
  });

  afterAll(() => servers?.close());

  for (const version of REVISIONS) {
    describe(`in ${version}`, () => {
      for (const c of cases(version)) {
        it(`${c.what}: ${c.fast ? 'hot path' : 'left to the SDK'}, same answer`, async () => {
          const headers = headersFor(version, c.headers);
          const viaSdk = await send(sdkUrl, c.body, headers);
          const viaHot = await send(hotUrl, c.body, headers);
          expect(viaSdk.fixedLength).toBe(false);
          expect(viaHot.fixedLength).toBe(c.fast);
          expect(viaHot.status).toBe(viaSdk.status);
          expect(viaHot.type).toBe(viaSdk.type);
          expect(viaHot.message).toEqual(viaSdk.message);
          // Only the hot path issues sessions (the SDK's fallback is stateless), and only at initialize.
          expect(viaSdk.session).toBeNull();
          expect(viaHot.session !== null).toBe(c.fast && (c.body as { method?: string }).method === 'initialize');
        });
      }
    });
  }

  // Every POST of real sessions, as the hosts sent them (headers and bytes), on a session of our own.
  for (const client of HOSTS.clients) {
    it(`${client.name} ${client.version}: every request of a recorded session takes the hot path, same answer`, async () => {
      let session: string | undefined;
      for (const { request } of client.exchanges) {
        if (request.method !== 'POST') continue;
        const { 'mcp-session-id': recorded, ...headers } = request.headers;
        const viaSdk = await send(sdkUrl, request.body, headers);
        const viaHot = await send(
          hotUrl,
          request.body,
          recorded && session ? { ...headers, 'mcp-session-id': session } : headers,
        );
        expect(viaHot.fixedLength, request.body).toBe(true);
        expect(viaHot.status).toBe(viaSdk.status);
        expect(viaHot.type).toBe(viaSdk.type);
        expect(viaHot.message).toEqual(viaSdk.message);
        session = viaHot.session ?? session;
      }
      expect(session).toBeDefined();
      await fetch(hotUrl, { method: 'DELETE', headers: { 'mcp-session-id': session! } });
    });
  }

  it('answers calls made while others are in flight, each with its own id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        send(hotUrl, call('get', { table: 'orders', key: (i % 10) + 1 }, i), headersFor('2025-06-18')),
      ),
    );
    answers.forEach((a, i) => {
      expect(a.fixedLength).toBe(true);
      const msg = a.message as { id: number; result: { structuredContent: { row: { id: number } } } };
      expect(msg.id).toBe(i);
      expect(msg.result.structuredContent.row.id).toBe((i % 10) + 1);
    });
  });
});

describe('2025-era sessions over HTTP', () => {
  // One server whose sessions do not expire during the tests, and one whose sessions expire fast.
  let servers: BothPaths;
  let expiring: BothPaths;
  let url: string;
  const LIMIT = 3;
  const IDLE_MS = 1_000;
  const sessions = new Sessions({ maxSessions: LIMIT, idleMs: 10 * 60_000 });

  beforeAll(async () => {
    servers = await bothPaths({ sessions });
    expiring = await bothPaths({ sessions: new Sessions({ maxSessions: 100, idleMs: IDLE_MS }) });
    url = servers.hotUrl;
  });

  afterAll(async () => {
    await servers?.close();
    await expiring?.close();
  });

  const open = async (at = url) => {
    const reply = await send(at, initialize('2025-06-18'), headersFor('2025-06-18'));
    expect(reply.status).toBe(200);
    expect(reply.session).toMatch(/^[\w-]+\.[\w-]+\.[\w-]{22}$/);
    return reply.session!;
  };
  const ping = (session: string, at = url) =>
    send(at, rpc('ping'), { ...headersFor('2025-06-18'), 'mcp-session-id': session });
  const end = (session?: string) =>
    fetch(url, { method: 'DELETE', headers: session ? { 'mcp-session-id': session } : {} });

  it('issues a session at initialize that later requests name, and DELETE ends it (then 404)', async () => {
    const id = await open();
    expect((await ping(id)).status).toBe(200);
    expect((await end(id)).status).toBe(200);
    const after = await ping(id);
    expect(after.status).toBe(404);
    expect(after.message).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    expect((await end(id)).status).toBe(404);
  });

  it('answers 404 for a session id it never issued, 400 for DELETE without one', async () => {
    expect((await ping('0.AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await ping('made-up')).status).toBe(404);
    expect((await end()).status).toBe(400);
  });

  it('forgets a session left idle longer than the expiry (then 404)', async () => {
    const id = await open(expiring.hotUrl);
    expect((await ping(id, expiring.hotUrl)).status).toBe(200);
    await new Promise((r) => setTimeout(r, IDLE_MS + 200));
    expect((await ping(id, expiring.hotUrl)).status).toBe(404);
  });

  it('never refuses initialize: past the limit the least recently used session ends (404, then a new initialize works)', async () => {
    const ids = [];
    for (let i = 0; i < LIMIT; i++) ids.push(await open());
    // The first is used again, so the second is now the least recently used.
    expect((await ping(ids[0]!)).status).toBe(200);
    const next = await open();
    expect(sessions.size).toBe(LIMIT);
    expect((await ping(ids[1]!)).status).toBe(404);
    for (const id of [ids[0]!, ids[2]!, next]) expect((await ping(id)).status).toBe(200);
    // Its client initializes again, as the specification asks, and is served.
    const again = await open();
    expect((await ping(again)).status).toBe(200);
    for (const id of [ids[2]!, next, again]) expect((await end(id)).status).toBe(200);
  });

  it('serves 2025-era requests that name no session, as before sessions existed', async () => {
    const reply = await send(url, call('get', { table: 'orders', key: 1 }), headersFor('2025-06-18'));
    expect(reply.status).toBe(200);
    expect(reply.fixedLength).toBe(true);
  });
});

describe('Sessions', () => {
  const limits = { maxSessions: 2, idleMs: 1_000 };
  const key = Buffer.alloc(32, 7);

  it('honours a session a sibling worker issued, and forgets it when the sibling says it ended', () => {
    const a = new Sessions(limits, key, '1');
    const b = new Sessions(limits, key, '2');
    const opened = a.open(0);
    expect(b.use(opened, 10)).toBe(true);
    expect(a.end(opened, 20)).toBe(true);
    b.heard({ used: [], ended: [opened] }, 25);
    expect(b.use(opened, 30)).toBe(false);
    expect(a.use(opened, 30)).toBe(false);
    a.close();
    b.close();
  });

  it('keeps a sibling-issued session ended where it was ended (a DELETE that landed on the non-issuer)', () => {
    const a = new Sessions(limits, key, '1');
    const b = new Sessions(limits, key, '2');
    const opened = a.open(0);
    expect(b.end(opened, 10)).toBe(true);
    expect(b.use(opened, 20)).toBe(false);
    a.close();
    b.close();
  });

  it('keeps a sibling-issued session expired once it idled out here, whether found on use or by the sweep', () => {
    const a = new Sessions(limits, key, '1');
    const b = new Sessions(limits, key, '2');
    const [one, two] = [a.open(0), a.open(0)];
    expect(b.use(one, 10)).toBe(true);
    expect(b.use(two, 10)).toBe(true);
    expect(b.use(one, 2_000)).toBe(false);
    expect(b.use(one, 2_001)).toBe(false);
    b.sweep(3_000);
    expect(b.size).toBe(0);
    expect(b.use(two, 3_001)).toBe(false);
    a.close();
    b.close();
  });

  it('gives each process its own issuer when none is named, so separate servers sharing a key never collide', () => {
    const [a, b] = [new Sessions(limits, key), new Sessions(limits, key)];
    expect(b.use(a.open(0), 1)).toBe(true);
    a.close();
    b.close();
  });

  it('refuses ids signed with another key, or altered', () => {
    const a = new Sessions(limits, key, '1');
    const stranger = new Sessions(limits, Buffer.alloc(32, 8), '2');
    expect(a.use(stranger.open(0), 1)).toBe(false);
    const own = a.open(0);
    const b = new Sessions(limits, key, '3');
    // a different last character, whatever the last one was
    const altered = `${own.slice(0, -1)}${own.endsWith('x') ? 'y' : 'x'}`;
    expect(b.use(altered, 1)).toBe(false);
    for (const s of [a, stranger, b]) s.close();
  });

  it('at the limit, a new session ends the least recently used one, however recently it was used', () => {
    const s = new Sessions({ maxSessions: 2, idleMs: 10 * 60_000 }, key, '1');
    const [first, second] = [s.open(0), s.open(1)];
    expect(s.use(first, 2)).toBe(true);
    const third = s.open(3);
    expect(s.size).toBe(2);
    expect(s.use(second, 4)).toBe(false);
    expect(s.use(first, 4)).toBe(true);
    expect(s.use(third, 4)).toBe(true);
    s.close();
  });

  it('a sibling session first seen here takes the place of the least recently used one too', () => {
    const a = new Sessions({ maxSessions: 10, idleMs: 10 * 60_000 }, key, '1');
    const b = new Sessions({ maxSessions: 1, idleMs: 10 * 60_000 }, key, '2');
    const own = b.open(0);
    expect(b.use(a.open(1), 2)).toBe(true);
    expect(b.use(own, 3)).toBe(false);
    a.close();
    b.close();
  });

  it('keeps sibling sessions ended past the memory of ended ids: older ones are honoured only while live', () => {
    const a = new Sessions({ maxSessions: 100, idleMs: 10 * 60_000 }, key, '1');
    const b = new Sessions({ maxSessions: 2, idleMs: 10 * 60_000 }, key, '2');
    const ids = [a.open(10), a.open(20), a.open(30), a.open(40)];
    // Four sibling sessions end here: only two records fit, so the floor rises past the first two.
    for (const [i, id] of ids.entries()) expect(b.end(id, 50 + i)).toBe(true);
    for (const id of ids) expect(b.use(id, 60)).toBe(false);
    // A sibling session issued after the floor is still honoured; one from before it is not.
    expect(b.use(a.open(70), 71)).toBe(true);
    a.close();
    b.close();
  });

  it('forgets a sibling session pushed out here without ending it: it is honoured again when it comes back', () => {
    const a = new Sessions({ maxSessions: 10, idleMs: 10 * 60_000 }, key, '1');
    const b = new Sessions({ maxSessions: 1, idleMs: 10 * 60_000 }, key, '2');
    const siblings = a.open(0);
    expect(b.use(siblings, 1)).toBe(true);
    const own = b.open(2);
    expect(b.use(siblings, 3)).toBe(true);
    // Our own session, pushed out, stays ended.
    expect(b.use(own, 4)).toBe(false);
    a.close();
    b.close();
  });
});

describe('Sessions shared between workers', () => {
  const key = Buffer.alloc(32, 7);
  const limits = { maxSessions: 3, idleMs: 10 * 60_000 };
  afterEach(() => void vi.useRealTimers());

  /** Two workers whose news is relayed to each other, as the --workers primary does. */
  const pair = () => {
    vi.useFakeTimers();
    const a = new Sessions(limits, key, '1');
    const b = new Sessions(limits, key, '2');
    a.share((news) => b.heard(news, Date.now()));
    b.share((news) => a.heard(news, Date.now()));
    const relay = () => vi.advanceTimersByTime(SHARE_MS);
    return { a, b, relay };
  };

  it('keeps a session used on another worker at the recent end: the least recently used anywhere is pushed out', () => {
    const { a, b, relay } = pair();
    const [kept, idle] = [a.open(), a.open()];
    relay();
    // `kept` is used on b only, and a hears of it.
    expect(b.use(kept)).toBe(true);
    relay();
    // A flood on a: two new sessions push out `idle` first, then the first of the flood, never `kept`.
    const flood = [a.open(), a.open()];
    relay();
    expect(a.use(kept)).toBe(true);
    expect(b.use(kept)).toBe(true);
    expect(a.use(idle)).toBe(false);
    relay();
    // b heard that `idle` ended on a, its issuer, and refuses it too.
    expect(b.use(idle)).toBe(false);
    expect(b.use(flood[1]!)).toBe(true);
    a.close();
    b.close();
  });

  it('does not bring back a session ended on one worker when another tells of its earlier use', () => {
    const { a, b, relay } = pair();
    const ids = [a.open(), a.open(), a.open()];
    // Ended on b before a told b of their opening (past b's memory of 3 ended ids: the floor rises).
    for (const id of ids) expect(b.end(id)).toBe(true);
    expect(b.end(b.open())).toBe(true);
    relay();
    for (const id of ids) {
      expect(a.use(id)).toBe(false);
      expect(b.use(id)).toBe(false);
    }
    a.close();
    b.close();
  });
});
