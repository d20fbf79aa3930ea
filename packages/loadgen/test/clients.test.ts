import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  type Era,
  LeanHttpClient,
  McpCallError,
  type McpClient,
  type Protocol,
  Session,
  StdioClient,
  type Target,
  type Transport,
} from '../src/clients/index.js';
import type { RpcMessage } from '../src/clients/wire.js';

/**
 * Every client (lean HTTP, SDK over HTTP, lean stdio, SDK over stdio) in every protocol mode
 * against the real server bin, plus a fake 2025-era server for what ours never does
 * (session ids, SSE split across chunks, no `server/discover`) and a hanging call.
 */

// better-sqlite3 belongs to the server package; the agent only needs it to build a fixture.
type Db = { exec(sql: string): void; close(): void };
const Database = createRequire(new URL('../../server/package.json', import.meta.url))('better-sqlite3') as new (
  file: string,
) => Db;
const BIN = fileURLToPath(new URL('../../server/dist/bin.js', import.meta.url));

const TOOLS = ['aggregate', 'describe_table', 'get', 'list_tables', 'query'];
const PROTOCOLS: Protocol[] = ['modern', 'legacy', 'auto'];
const EXPECTED_ERA: Record<Protocol, Era> = { modern: 'modern', legacy: 'legacy', auto: 'modern' };
const EXPECTED_VERSION: Record<Era, string> = { modern: '2026-07-28', legacy: '2025-11-25' };

let dir = '';
let dbUrl = '';
const servers: ChildProcess[] = [];

async function startServer(extraArgs: string[] = []): Promise<string> {
  return (await startServerProcess(['--port', '0', ...extraArgs])).url;
}

async function startServerProcess(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, '--url', dbUrl, '--http', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  servers.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const m = /listening on (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${stderr}`));
    });
  });
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(promise: Promise<unknown>): Promise<McpCallError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpCallError);
    return error as McpCallError;
  }
  throw new Error('expected the call to fail');
}

let endpoint = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-clients-'));
  const file = join(dir, 'tiny.db');
  const db = new Database(file);
  db.exec(`
    create table items (id integer primary key, label text not null, qty integer not null);
    insert into items (label, qty) values ('one', 1), ('two', 7), ('three', 3), ('four', 9);
  `);
  db.close();
  dbUrl = `sqlite:${file}`;
  endpoint = await startServer();
});

afterAll(async () => {
  await Promise.all(servers.map(stopServer));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const stdioTarget = (): Target => ({ kind: 'stdio', command: process.execPath, args: [BIN, '--url', dbUrl] });
const httpTarget = (): Target => ({ kind: 'http', url: endpoint });

const MATRIX = (['lean', 'sdk'] as const).flatMap((client) =>
  (['http', 'stdio'] as const).flatMap((transport) => PROTOCOLS.map((protocol) => ({ client, transport, protocol }))),
);

describe.each(MATRIX)('$client client over $transport, protocol $protocol', ({ client, transport, protocol }) => {
  let mcp: McpClient;
  let opened: { era: Era; protocolVersion: string; instructions?: string };

  beforeAll(async () => {
    mcp = createClient(transport === 'http' ? httpTarget() : stdioTarget(), { client, protocol, timeoutMs: 15_000 });
    opened = await mcp.open();
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it('opens in the expected era', () => {
    const era = EXPECTED_ERA[protocol];
    // initialize's (or server/discover's) instructions too: hosts hand them to the model, so the token count reads them
    expect(opened).toEqual({
      era,
      protocolVersion: EXPECTED_VERSION[era],
      instructions: expect.stringMatching(/^Read-only access to one relational database/),
    });
  });

  it('lists the server tools', async () => {
    const tools = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(TOOLS));
    expect(tools.find((t) => t.name === 'query')?.inputSchema).toMatchObject({ type: 'object' });
  });

  it('calls query with a filter and gets the rows as data', async () => {
    const result = await mcp.callTool('query', { table: 'items', filter: 'qty > 5', columns: ['id', 'label'] });
    expect(result).toEqual({
      isError: false,
      data: {
        columns: ['id', 'label'],
        rows: [
          { id: 2, label: 'two' },
          { id: 4, label: 'four' },
        ],
        truncated: false,
        next_cursor: null,
      },
      // the content blocks as sent, for the token count to read as the model would
      content: [{ type: 'text', text: expect.stringMatching(/^\{"columns":\["id","label"\],"rows":\[/) }],
    });
    // Again, on the same connection/process: the cached shapes and the id counter hold up.
    const again = await mcp.callTool('query', { table: 'items', filter: { column: 'id', op: '=', value: 3 } });
    expect((again.data as { rows: unknown[] }).rows).toEqual([{ id: 3, label: 'three', qty: 3 }]);
  });

  it('returns a tool error as isError with its code', async () => {
    const result = await mcp.callTool('query', { table: 'nope' });
    expect(result.isError).toBe(true);
    expect((result.data as { error: { code: string } }).error.code).toBe('unknown_table');
  });

  it('pings the server on a 2025-era session (the protocol floor of a server without an echo tool), and not in 2026', async () => {
    if (EXPECTED_ERA[protocol] === 'legacy') {
      await expect(mcp.ping!()).resolves.toBeUndefined();
      await mcp.ping!();
    } else {
      // the 2026-07-28 revision has no ping
      await expect(mcp.ping!()).rejects.toMatchObject({ kind: 'protocol' });
    }
    expect((await mcp.callTool('list_tables', {})).isError).toBe(false);
  });

  it('rejects an unknown tool with jsonrpc_-32602', async () => {
    const error = await failure(mcp.callTool('no_such_tool', {}));
    expect(error.kind).toBe('jsonrpc_-32602');
  });

  it('can open again (a new session on a warm client)', async () => {
    expect((await mcp.open()).era).toBe(EXPECTED_ERA[protocol]);
    expect((await mcp.callTool('list_tables', {})).isError).toBe(false);
    // Over stdio this starts a whole new server process, which a busy machine makes slow.
  }, 30_000);
});

describe.each((['lean', 'sdk'] as const).flatMap((client) => PROTOCOLS.map((protocol) => ({ client, protocol }))))(
  '$client client, protocol $protocol, unreachable',
  ({ client, protocol }) => {
    it('reports a refused connection as network', async () => {
      const url = `http://127.0.0.1:${await closedPort()}/mcp`;
      const mcp = createClient({ kind: 'http', url }, { client, protocol, timeoutMs: 5_000 });
      try {
        expect((await failure(mcp.open())).kind).toBe('network');
      } finally {
        await mcp.close();
      }
    });

    it('reports a server command that cannot run as network', async () => {
      const mcp = createClient(
        { kind: 'stdio', command: join(dir, 'no-such-server'), args: [] },
        { client, protocol, timeoutMs: 5_000 },
      );
      try {
        expect((await failure(mcp.open())).kind).toBe('network');
      } finally {
        await mcp.close();
      }
    });
  },
);

describe('HTTP status errors', () => {
  let tokenEndpoint = '';
  beforeAll(async () => {
    tokenEndpoint = await startServer(['--token', 's3cret']);
  });

  it('lean: a wrong path is http_404', async () => {
    const mcp = new LeanHttpClient({ url: endpoint.replace(/\/mcp$/, '/elsewhere'), protocol: 'modern' });
    try {
      expect((await failure(mcp.open())).kind).toBe('http_404');
    } finally {
      await mcp.close();
    }
  });

  it.each(PROTOCOLS)(
    'lean, %s: the bearer token is sent, and its absence is http_401 (never a legacy fallback)',
    async (protocol) => {
      const withToken = createClient(
        { kind: 'http', url: tokenEndpoint },
        { client: 'lean', protocol, token: 's3cret' },
      );
      const without = createClient({ kind: 'http', url: tokenEndpoint }, { client: 'lean', protocol });
      try {
        expect((await withToken.open()).era).toBe(EXPECTED_ERA[protocol]);
        expect((await withToken.callTool('list_tables', {})).isError).toBe(false);
        expect((await failure(without.open())).kind).toBe('http_401');
      } finally {
        await withToken.close();
        await without.close();
      }
    },
  );

  it.each(PROTOCOLS)('sdk, %s: the bearer token is sent, and its absence is http_401', async (protocol) => {
    const withToken = createClient({ kind: 'http', url: tokenEndpoint }, { client: 'sdk', protocol, token: 's3cret' });
    const without = createClient({ kind: 'http', url: tokenEndpoint }, { client: 'sdk', protocol });
    try {
      expect((await withToken.open()).era).toBe(EXPECTED_ERA[protocol]);
      expect((await withToken.callTool('list_tables', {})).isError).toBe(false);
      expect((await failure(without.open())).kind).toBe('http_401');
    } finally {
      await withToken.close();
      await without.close();
    }
  });
});

/** Servers that are not MCP: what the lean client says names what it found, in a few words. */
describe('lean HTTP client against something that is not an MCP server', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      if (req.url === '/html')
        return void res
          .writeHead(501, { 'content-type': 'text/html' })
          .end(
            `<!DOCTYPE html><html><head><title>Unsupported method ('POST')</title></head><body>${'<p>x</p>'.repeat(200)}</body></html>`,
          );
      if (req.url === '/json')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","items":[]}');
      if (req.url === '/locked') return void res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const html = /^HTTP 501: an HTML page \("Unsupported method \('POST'\)"\), not an MCP answer$/;
  const locked = /^HTTP 401: "Unauthorized": the server wants a bearer token \(--token, or MCP_DB_TOKEN\)$/;
  // the SDK's own messages carry the whole body, or a page of schema issues: both clients say less
  it.each([
    ['lean', '/html', 'http_501', html],
    [
      'lean',
      '/json',
      'protocol',
      /^the answer is JSON but not JSON-RPC 2\.0 \(\{"status":"ok","items":\[\]\}\): is http:\/\/127\.0\.0\.1:\d+\/json an MCP endpoint\?$/,
    ],
    ['lean', '/text', 'protocol', /^the answer is not JSON, so not MCP: "hello"$/],
    ['lean', '/locked', 'http_401', locked],
    ['sdk', '/html', 'http_501', html],
    ['sdk', '/json', 'protocol', /^the answer is JSON but not JSON-RPC 2\.0: is the target an MCP endpoint\?$/],
    ['sdk', '/locked', 'http_401', locked],
  ] as const)('%s client, %s: %s, said in a few words', async (client, path, kind, message) => {
    const mcp = createClient({ kind: 'http', url: `${base}${path}` }, { client, protocol: 'legacy' });
    try {
      const error = await failure(mcp.open());
      expect(error.kind).toBe(kind);
      expect(error.message).toMatch(message);
    } finally {
      await mcp.close();
    }
  });

  it.each(['lean', 'sdk'] as const)('%s client, a token sent and refused: says it was refused', async (client) => {
    const mcp = createClient({ kind: 'http', url: `${base}/locked` }, { client, protocol: 'legacy', token: 'wrong' });
    try {
      const error = await failure(mcp.open());
      expect(error.kind).toBe('http_401');
      expect(error.message).toBe(
        'HTTP 401: "Unauthorized": the server refused the bearer token sent (is it the one the server has? --token, or MCP_DB_TOKEN)',
      );
    } finally {
      await mcp.close();
    }
  });
});

/**
 * A 2025-era session the server ended (idle past --session-idle, or a server restarted since):
 * its next request gets 404, and both clients start a new session and retry the request once.
 */
describe.each(['lean', 'sdk'] as const)('%s client, a session the server ended', (client) => {
  const row2 = { id: 2, label: 'two', qty: 7 };
  const get2 = async (mcp: McpClient) => (await mcp.callTool('get', { table: 'items', key: 2 })).data;

  it('expired: the call, and then a listing, go through on a new session, each re-initialization counted once', async () => {
    const url = await startServer(['--session-idle', '2']);
    const mcp = createClient({ kind: 'http', url }, { client, protocol: 'legacy', timeoutMs: 15_000 });
    try {
      await mcp.open();
      expect(await get2(mcp)).toEqual({ found: true, row: row2 });
      expect(mcp.reinitialized).toBe(0);
      await sleep(2_500);
      expect(await get2(mcp)).toEqual({ found: true, row: row2 });
      expect(mcp.reinitialized).toBe(1);
      await sleep(2_500);
      expect((await mcp.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(TOOLS));
      expect(mcp.reinitialized).toBe(2);
      // the new session is the one used from now on
      expect(await get2(mcp)).toEqual({ found: true, row: row2 });
      expect(mcp.reinitialized).toBe(2);
    } finally {
      await mcp.close();
    }
  }, 30_000);

  it('restarted: a server that never issued the session answers 404, and the call goes through on a new one', async () => {
    const first = await startServerProcess(['--port', '0']);
    const mcp = createClient({ kind: 'http', url: first.url }, { client, protocol: 'legacy', timeoutMs: 15_000 });
    try {
      await mcp.open();
      expect(await get2(mcp)).toEqual({ found: true, row: row2 });
      await stopServer(first.child);
      await startServerProcess(['--port', new URL(first.url).port]);
      expect(await get2(mcp)).toEqual({ found: true, row: row2 });
      expect(mcp.reinitialized).toBe(1);
    } finally {
      await mcp.close();
    }
  }, 30_000);
});

describe('stdio server that dies', () => {
  it('rejects the pending call with network when the child exits mid-call', async () => {
    // Reads the first request, then exits without answering.
    const script = "process.stdin.once('data', () => { process.stderr.write('boom'); process.exit(3); });";
    const mcp = new StdioClient({ command: process.execPath, args: ['-e', script], protocol: 'auto' });
    const error = await failure(mcp.open());
    expect(error.kind).toBe('network');
    expect(error.message).toContain('code 3');
    expect((await failure(mcp.listTools())).kind).toBe('protocol'); // never opened
    await mcp.close();
  });

  it('rejects a call with network when the child exits before answering it, and every call after', async () => {
    // Answers server/discover, then dies on the first tools/call.
    const script = `
      let buf = '';
      process.stdin.on('data', (chunk) => {
        buf += chunk;
        for (let nl; (nl = buf.indexOf('\\n')) !== -1; buf = buf.slice(nl + 1)) {
          const msg = JSON.parse(buf.slice(0, nl));
          if (msg.method === 'tools/call') process.exit(2);
          process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { supportedVersions: ['2026-07-28'] } }) + '\\n');
        }
      });`;
    const mcp = new StdioClient({ command: process.execPath, args: ['-e', script], protocol: 'modern' });
    try {
      expect(await mcp.open()).toEqual({ era: 'modern', protocolVersion: '2026-07-28' });
      const error = await failure(mcp.callTool('list_tables', {}));
      expect(error.kind).toBe('network');
      expect(error.message).toContain('code 2');
      expect((await failure(mcp.callTool('list_tables', {}))).kind).toBe('network');
    } finally {
      await mcp.close();
    }
  });
});

/** Commands that are not MCP servers: the failure says what the command did instead, not our own error echoed back. */
describe('stdio command that is not an MCP server', () => {
  const node = (script: string): [string, string[]] => [process.execPath, ['-e', script]];
  it.each([
    [
      'cat',
      ['cat', []],
      /^cat sent our initialize request back unchanged: it echoes its input and does not speak MCP over stdio$/,
    ],
    [
      'a command that prints text and exits',
      node("console.log('hello')"),
      /exited with code 0 before answering initialize; it printed "hello" on stdout, which is not JSON-RPC: it does not speak MCP over stdio$/,
    ],
    [
      'a command that exits silently',
      node(''),
      /exited with code 0 before answering initialize; it never answered on stdout: does it speak MCP over stdio/,
    ],
    [
      'a command that never answers',
      node('setInterval(() => {}, 1000)'),
      /^no answer to initialize within 1000 ms; it never answered on stdout: does it speak MCP over stdio/,
    ],
    [
      'a command that does not exist',
      [join(dir, 'no-such-server'), []],
      /^cannot run .*no-such-server: command not found$/,
    ],
  ] as const)('%s', async (_name, [command, args], message) => {
    const mcp = new StdioClient({ command, args: [...args], protocol: 'legacy', timeoutMs: 1_000 });
    try {
      expect((await failure(mcp.open())).message).toMatch(message);
    } finally {
      await mcp.close();
    }
  });
});

/**
 * A 2025-only Streamable HTTP server, shaped like the SDK's stateful one: `server/discover`
 * is refused with 400 before initialize, a session id is handed out and required, answers
 * come as SSE (with a notification first, CRLF line ends, JSON split over `data:` lines, and
 * across TCP chunks or in one body of known length), and the `slow` tool never answers.
 */
interface Seen {
  httpMethod: string;
  rpcMethod?: string;
  session?: string;
  version?: string;
  mcpMethod?: string;
}

async function startFakeLegacy(): Promise<{
  url: string;
  seen: Seen[];
  forget(on: boolean): void;
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  const SESSION = 'sess-42';
  /** when on, every tools/call is told its session is gone, as a server evicting it at once would */
  let forgetting = false;
  const sse = (res: ServerResponse, msg: object, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', ...headers });
    res.write(
      'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\r\n\r\n',
    );
    const json = JSON.stringify(msg);
    // One message over two data: lines (joined with a newline between tokens: still JSON) and two writes.
    const half = json.indexOf(',"result"') + 1;
    res.write(`event: message\r\ndata: ${json.slice(0, half)}`);
    setTimeout(() => res.end(`\r\ndata: ${json.slice(half)}\r\n\r\n`), 5);
  };
  // The same events as one body of known length (how our server answers), read whole by the client.
  const sseWhole = (res: ServerResponse, msg: object) => {
    const json = JSON.stringify(msg);
    const half = json.indexOf(',"result"') + 1;
    const body = Buffer.from(
      'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\r\n\r\n' +
        `event: message\r\ndata: ${json.slice(0, half)}\r\ndata: ${json.slice(half)}\r\n\r\n`,
    );
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': body.length }).end(body);
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const entry: Seen = {
        httpMethod: req.method ?? '',
        session: req.headers['mcp-session-id'] as string | undefined,
        version: req.headers['mcp-protocol-version'] as string | undefined,
        mcpMethod: req.headers['mcp-method'] as string | undefined,
      };
      seen.push(entry);
      if (req.method === 'DELETE') return res.writeHead(200).end();
      if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST, DELETE' }).end();
      const msg = JSON.parse(body) as { id?: number; method: string; params?: { name?: string } };
      entry.rpcMethod = msg.method;
      if (msg.method === 'initialize') {
        return sse(
          res,
          {
            jsonrpc: '2.0',
            id: msg.id,
            result: {
              protocolVersion: '2025-06-18',
              capabilities: { tools: {} },
              serverInfo: { name: 'fake', version: '1' },
            },
          },
          { 'mcp-session-id': SESSION },
        );
      }
      if (entry.session !== SESSION) {
        res.writeHead(400, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: Server not initialized' },
            id: null,
          }),
        );
      }
      if (msg.method === 'notifications/initialized') return res.writeHead(202).end();
      if (msg.method === 'tools/list') {
        return sseWhole(res, {
          jsonrpc: '2.0',
          id: msg.id,
          result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] },
        });
      }
      if (msg.method === 'tools/call' && forgetting) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
        );
      }
      if (msg.method === 'tools/call' && msg.params?.name === 'slow') return; // never answers
      if (msg.method === 'tools/call') {
        // Plain JSON this time, and only a text block: data comes from parsing it.
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            result: { content: [{ type: 'text', text: '{"echoed":true}' }] },
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    forget(on) {
      forgetting = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('lean HTTP client against a 2025-only server', () => {
  let fake: Awaited<ReturnType<typeof startFakeLegacy>>;
  beforeAll(async () => {
    fake = await startFakeLegacy();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('auto falls back to initialize, echoes the session id, reads SSE and ends the session', async () => {
    fake.seen.length = 0;
    const mcp = new LeanHttpClient({ url: fake.url, protocol: 'auto' });
    expect(await mcp.open()).toEqual({ era: 'legacy', protocolVersion: '2025-06-18' });
    expect(await mcp.listTools()).toEqual([{ name: 'echo', description: undefined, inputSchema: { type: 'object' } }]);
    expect(await mcp.callTool('echo', {})).toEqual({
      isError: false,
      data: { echoed: true },
      content: [{ type: 'text', text: '{"echoed":true}' }],
    });
    await mcp.close();

    expect(fake.seen.map((s) => s.rpcMethod ?? s.httpMethod)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
      'DELETE',
    ]);
    expect(fake.seen[0]).toMatchObject({ mcpMethod: 'server/discover', version: '2026-07-28' });
    // Everything after initialize carries the session and the negotiated revision.
    for (const s of fake.seen.slice(2)) expect(s).toMatchObject({ session: 'sess-42', version: '2025-06-18' });
  });

  it('modern does not fall back: the refusal is the error', async () => {
    const mcp = new LeanHttpClient({ url: fake.url, protocol: 'modern' });
    try {
      expect((await failure(mcp.open())).kind).toBe('http_400');
    } finally {
      await mcp.close();
    }
  });

  it.each(['lean', 'sdk'] as const)(
    "%s: a second 404 in a row is the call's error, after one re-initialization",
    async (kind) => {
      fake.seen.length = 0;
      const mcp = createClient({ kind: 'http', url: fake.url }, { client: kind, protocol: 'legacy' });
      try {
        await mcp.open();
        fake.forget(true);
        expect((await failure(mcp.callTool('echo', {}))).kind).toBe('http_404');
        expect(mcp.reinitialized).toBe(1);
      } finally {
        fake.forget(false);
        await mcp.close();
      }
      const sent = fake.seen.flatMap((s) =>
        s.rpcMethod === 'initialize' || s.rpcMethod === 'tools/call' ? [s.rpcMethod] : [],
      );
      expect(sent).toEqual(['initialize', 'tools/call', 'initialize', 'tools/call']);
      // the lean client forgets a session the server said is gone: nothing to DELETE at close
      if (kind === 'lean') expect(fake.seen.filter((s) => s.httpMethod === 'DELETE')).toEqual([]);
    },
  );

  it('lean: walking away from a session (abandon) never ends it, while opening again over it does', async () => {
    fake.seen.length = 0;
    const mcp = new LeanHttpClient({ url: fake.url, protocol: 'legacy' });
    await mcp.open();
    mcp.abandon();
    await mcp.open();
    await mcp.close();
    expect(fake.seen.map((s) => s.rpcMethod ?? s.httpMethod)).toEqual([
      'initialize',
      'notifications/initialized',
      'initialize',
      'notifications/initialized',
      'DELETE',
    ]);
  });

  it('times a call out, then serves the next one on a fresh connection', async () => {
    const mcp = new LeanHttpClient({ url: fake.url, protocol: 'legacy', timeoutMs: 300 });
    try {
      await mcp.open();
      expect((await failure(mcp.callTool('slow', {}))).kind).toBe('timeout');
      expect((await mcp.callTool('echo', {})).data).toEqual({ echoed: true });
    } finally {
      await mcp.close();
    }
  });
});

/** A transport that answers from a script, recording what the session sent and which routes it asked for. */
class ScriptedTransport implements Transport<string> {
  readonly sent: { body: string; route: string }[] = [];
  readonly routes: string[] = [];
  negotiatedVersion: string | undefined;
  constructor(
    readonly unansweredIsLegacy: boolean,
    readonly answer: (method: string, id: number) => RpcMessage | McpCallError,
  ) {}
  begin(): void {}
  abandon(): void {}
  route(era: Era, method: string, tool?: string): string {
    const route = `${era} ${method}${tool ? ` ${tool}` : ''}`;
    this.routes.push(route);
    return route;
  }
  negotiated(version: string): void {
    this.negotiatedVersion = version;
  }
  async request(body: string, id: number, route: string): Promise<RpcMessage> {
    this.sent.push({ body, route });
    const answer = this.answer((JSON.parse(body) as { method: string }).method, id);
    if (answer instanceof McpCallError) throw answer;
    return answer;
  }
  async notify(body: string, route: string): Promise<void> {
    this.sent.push({ body, route });
  }
  async close(): Promise<void> {}
}

describe('the session over a transport', () => {
  const legacyServer =
    (silent: boolean) =>
    (method: string, id: number): RpcMessage | McpCallError => {
      if (method === 'server/discover')
        return silent
          ? new McpCallError('timeout', 'no answer')
          : { id, error: { code: -32601, message: 'Method not found' } };
      if (method === 'initialize') return { id, result: { protocolVersion: '2025-06-18' } };
      return { id, result: { content: [{ type: 'text', text: '{"ok":true}' }] } };
    };

  it('falls back to initialize on a JSON-RPC refusal, and names the agreed revision to the transport', async () => {
    const transport = new ScriptedTransport(false, legacyServer(false));
    const session = new Session(transport, { protocol: 'auto' });
    expect(await session.open()).toEqual({ era: 'legacy', protocolVersion: '2025-06-18' });
    expect(transport.negotiatedVersion).toBe('2025-06-18');
    expect(transport.sent.map((m) => m.route)).toEqual([
      'modern server/discover',
      'legacy initialize',
      'legacy notifications/initialized',
    ]);
  });

  it('falls back on a silent probe only where the transport says silence means 2025', async () => {
    expect((await new Session(new ScriptedTransport(true, legacyServer(true)), { protocol: 'auto' }).open()).era).toBe(
      'legacy',
    );
    expect(
      (await failure(new Session(new ScriptedTransport(false, legacyServer(true)), { protocol: 'auto' }).open())).kind,
    ).toBe('timeout');
  });

  it('asks a route once per tool and era, and numbers every request', async () => {
    const transport = new ScriptedTransport(false, legacyServer(false));
    const session = new Session(transport, { protocol: 'legacy' });
    await expect(session.callTool('get', {})).rejects.toThrow('call open() first');
    await session.open();
    for (const key of [1, 2]) expect((await session.callTool('get', { key })).data).toEqual({ ok: true });
    expect(transport.routes.filter((r) => r === 'legacy tools/call get')).toHaveLength(1);
    const calls = transport.sent.filter((m) => m.route === 'legacy tools/call get').map((m) => JSON.parse(m.body));
    expect(calls).toEqual([
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'get', arguments: { key: 1 } }, id: 2 },
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'get', arguments: { key: 2 } }, id: 3 },
    ]);
  });
});
