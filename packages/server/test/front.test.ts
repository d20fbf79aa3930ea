import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseContext, openDatabase } from '../src/context.js';
import { createServerFactory, directTools } from '../src/server.js';
import { READ_TOOLS } from '../src/tools/index.js';
import { BusyPoll } from '../src/transports/busy-poll.js';
import {
  FRONT_MAX_REQUEST_BYTES,
  type FrontAnswer,
  frontDoor,
  frontResponse,
  readRequest,
} from '../src/transports/front.js';
import { startHttp } from '../src/transports/http.js';
import { type HttpServer, startHttpServer } from './support/mcp.js';

/**
 * The front door (transports/front.ts) reads plain requests itself and hands a connection to
 * Node's HTTP server at the first that is not. Spoken to here with raw bytes on one connection:
 * whatever path a request takes, its answer, and those of the requests after it on the same
 * connection, are the server's usual ones.
 */

const SOCKET = {} as Socket;
const bytes = (text: string) => Buffer.from(text, 'latin1');
const post = (body: string, headers = '') =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('readRequest: the plain subset, anything else left to Node', () => {
  it('reads a whole POST: method, target, lowercased headers, the body and nothing past it', () => {
    const text = `${post('{"a":1}', 'X-Thing:  padded value  \r\n')}POST /mcp HTTP/1.1\r\n`;
    const request = readRequest(bytes(text), SOCKET)!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/mcp');
    expect(request.headers['x-thing']).toBe('padded value');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body.toString()).toBe('{"a":1}');
  });

  it('reads a DELETE without a body', () => {
    const request = readRequest(bytes('DELETE /mcp HTTP/1.1\r\nHost: a\r\nMcp-Session-Id: s\r\n\r\n'), SOCKET)!;
    expect(request.method).toBe('DELETE');
    expect(request.body.length).toBe(0);
  });

  it.each([
    ['headers not all here', 'POST /mcp HTTP/1.1\r\nHost: a\r\n'],
    ['body not all here', post('{"a":1}').slice(0, -2)],
    ['HTTP/1.0', post('{}').replace('HTTP/1.1', 'HTTP/1.0')],
    ['a method other than POST and DELETE', post('{}').replace('POST', 'PUT')],
    ['a header named twice', post('{}', 'Host: b\r\n')],
    ['a header name in two cases', post('{}', 'content-TYPE: text/plain\r\n')],
    ['Transfer-Encoding', post('{}', 'Transfer-Encoding: chunked\r\n')],
    ['Content-Length beside Transfer-Encoding', post('{}', 'transfer-encoding: identity\r\n')],
    ['Expect', post('{}', 'Expect: 100-continue\r\n')],
    ['Upgrade', post('{}', 'Upgrade: h2c\r\n')],
    ['Connection: close', post('{}', 'Connection: close\r\n')],
    ['a folded header line', post('{}', 'X-A: one\r\n two\r\n')],
    ['a control character in a value', post('{}', 'X-A: o\x01ne\r\n')],
    ['a space before the colon', post('{}', 'X-A : one\r\n')],
    ['a bare LF', post('{}', 'X-A: one\nX-B: two\r\n')],
    ['POST without Content-Length', 'POST /mcp HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['a signed Content-Length', post('{}').replace('Content-Length: 2', 'Content-Length: +2')],
    ['DELETE with a body', 'DELETE /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}'],
    ['a request over the front door size', post('x'.repeat(FRONT_MAX_REQUEST_BYTES))],
  ])('leaves to Node: %s', (_, text) => {
    expect(readRequest(bytes(text), SOCKET)).toBeUndefined();
  });
});

/** One raw connection that reads answers framed by Content-Length (as every answer here is). */
class Connection {
  private readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  closed = false;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.wake?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    this.socket.on('error', () => {});
  }

  write(text: string): Promise<void> {
    return new Promise((resolve) => this.socket.write(text, () => resolve()));
  }

  /** The next answer: its status, headers (lowercased) and body. */
  async read(timeoutMs = 5_000): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end !== -1) {
        const [line, ...fields] = this.buffer.toString('latin1', 0, end).split('\r\n');
        const headers = Object.fromEntries(
          fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]),
        );
        const framed = headers['transfer-encoding'] === 'chunked' ? unchunk(this.buffer.subarray(end + 4)) : undefined;
        const length = framed ? framed.length : Number(headers['content-length'] ?? 0);
        if (this.buffer.length >= end + 4 + length) {
          const body = framed ? framed.body : this.buffer.toString('utf8', end + 4, end + 4 + length);
          this.buffer = this.buffer.subarray(end + 4 + length);
          return { status: Number(line!.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) throw new Error(`connection closed; unread: ${this.buffer.toString().slice(0, 200)}`);
      if (Date.now() > deadline) throw new Error('no answer in time');
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

const rpc = (id: number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const initialize = (id = 1) =>
  post(
    rpc(id, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } }),
  );
const getItem = (session: string, id: number, key: number) =>
  post(rpc(id, 'tools/call', { name: 'get', arguments: { table: 'items', key } }), `Mcp-Session-Id: ${session}\r\n`);
/** The one SSE message of a 2025-era answer. */
const data = (body: string) =>
  JSON.parse(/^data: (.*)$/m.exec(body)![1]!) as {
    id: number;
    result?: { structuredContent?: unknown };
    error?: { code: number };
  };

describe('a connection through the front door and past it', () => {
  let dir: string;
  let server: HttpServer;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-db-front-'));
    const file = join(dir, 'tiny.db');
    const db = new Database(file);
    db.exec(
      "create table items (id integer primary key, label text not null); insert into items (label) values ('one'), ('two');",
    );
    // 200 rows of 1,000 characters: a `query` of them all answers about 200 KB.
    db.exec('create table big (id integer primary key, text text not null)');
    const insert = db.prepare('insert into big (text) values (?)');
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(1000));
    db.close();
    server = await startHttpServer(`sqlite:${file}`);
    port = Number(new URL(server.endpoint).port);
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A connection with a session open on it. */
  async function opened(): Promise<{ conn: Connection; session: string }> {
    const conn = new Connection(port);
    await conn.write(initialize());
    const answer = await conn.read();
    expect(answer.status).toBe(200);
    return { conn, session: answer.headers['mcp-session-id']! };
  }

  it('answers pipelined calls in order, on one connection', async () => {
    const { conn, session } = await opened();
    try {
      await conn.write(getItem(session, 2, 1) + getItem(session, 3, 2) + getItem(session, 4, 1));
      const answers = [await conn.read(), await conn.read(), await conn.read()].map((a) => data(a.body));
      expect(answers.map((a) => a.id)).toEqual([2, 3, 4]);
      expect(answers.map((a) => (a.result!.structuredContent as { row: { label: string } }).row.label)).toEqual([
        'one',
        'two',
        'one',
      ]);
    } finally {
      conn.close();
    }
  });

  it('a request sent in two pieces is answered, and so is every one after it', async () => {
    const { conn, session } = await opened();
    try {
      const call = getItem(session, 2, 2);
      await conn.write(call.slice(0, 40));
      await new Promise((r) => setTimeout(r, 100));
      await conn.write(call.slice(40));
      expect(data((await conn.read()).body).result?.structuredContent).toMatchObject({ row: { label: 'two' } });
      await conn.write(getItem(session, 3, 1));
      expect(data((await conn.read()).body).result?.structuredContent).toMatchObject({ row: { label: 'one' } });
    } finally {
      conn.close();
    }
  });

  it.each([
    ['a chunked body', (s: string) => chunked(getItem(s, 2, 1)), 200],
    ['a body over the front door size', (s: string) => padded(getItem(s, 2, 1), FRONT_MAX_REQUEST_BYTES), 200],
    ['another Host', (s: string) => getItem(s, 2, 1).replace('Host: 127.0.0.1', 'Host: evil.example'), 403],
    ['an unknown session', () => getItem('not-a-session', 2, 1), 404],
    ['a body that is not JSON', (s: string) => post('{jsonrpc', `Mcp-Session-Id: ${s}\r\n`), 400],
  ])('after a plain call, %s gets the server’s usual answer, and the connection goes on', async (_, make, status) => {
    const { conn, session } = await opened();
    try {
      await conn.write(getItem(session, 1, 1));
      expect((await conn.read()).status).toBe(200);
      await conn.write(make(session));
      const answer = await conn.read();
      expect(answer.status, answer.body).toBe(status);
      if (status === 403) return; // Node closes after the refusal
      await conn.write(getItem(session, 3, 2));
      expect(data((await conn.read()).body).result?.structuredContent).toMatchObject({ row: { label: 'two' } });
    } finally {
      conn.close();
    }
  });

  it('a malformed request after a plain one gets 400 and the connection closes', async () => {
    const { conn, session } = await opened();
    try {
      await conn.write(`${getItem(session, 1, 1)}POST /mcp HTTP/1.1\r\nContent-Length: x\r\n\r\n`);
      expect((await conn.read()).status).toBe(200);
      expect((await conn.read()).status).toBe(400);
    } finally {
      conn.close();
    }
  });

  it('a client that pipelines calls and reads no answer is answered one call at a time as it reads, and the server’s memory stays bounded', async () => {
    const { conn, session } = await opened();
    const pid = server.process.pid!;
    try {
      const before = rssMb(pid);
      const all = post(
        rpc(2, 'tools/call', { name: 'query', arguments: { table: 'big', limit: 200 } }),
        `Mcp-Session-Id: ${session}\r\n`,
      );
      // 1,500 answers of ~200 KB: ~300 MB if the server answered them all into its own memory.
      void conn.write(all.repeat(1_500));
      await new Promise((r) => setTimeout(r, 3_000));
      const grown = rssMb(pid) - before;
      expect(grown).toBeLessThan(64);
      // The server serves others meanwhile.
      const other = await opened();
      await other.conn.write(getItem(other.session, 3, 2));
      expect(data((await other.conn.read()).body).result?.structuredContent).toMatchObject({ row: { label: 'two' } });
      other.conn.close();
    } finally {
      conn.close();
    }
  });

  it('DELETE ends the session: a call naming it afterwards gets 404', async () => {
    const { conn, session } = await opened();
    try {
      await conn.write(`DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: ${session}\r\n\r\n`);
      expect((await conn.read()).status).toBe(200);
      await conn.write(getItem(session, 2, 1));
      expect((await conn.read()).status).toBe(404);
    } finally {
      conn.close();
    }
  });

  it('a connection that sends nothing gets the headers timeout’s 408, naming its option', async () => {
    const impatient = await startHttpServer(`sqlite:${join(dir, 'tiny.db')}`, ['--headers-timeout', '500']);
    const conn = new Connection(Number(new URL(impatient.endpoint).port));
    try {
      const answer = await conn.read(5_000);
      expect(answer.status).toBe(408);
      expect(answer.body).toContain('--headers-timeout');
    } finally {
      conn.close();
      await impatient.stop();
    }
  });

  it('the server stops at once with idle kept-alive connections open', async () => {
    const { conn } = await opened();
    const started = performance.now();
    await server.stop();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(conn.closed || (await new Promise((r) => setTimeout(() => r(conn.closed), 500)))).toBe(true);
  });
});

/** A process's resident memory, in MB. */
function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** A chunked body whole at the start of `bytes`: its text and the bytes it took; undefined while incomplete. */
function unchunk(bytes: Buffer): { body: string; length: number } | undefined {
  let at = 0;
  let body = '';
  for (;;) {
    const line = bytes.indexOf('\r\n', at);
    if (line === -1) return undefined;
    const size = Number.parseInt(bytes.toString('latin1', at, line), 16);
    if (bytes.length < line + 2 + size + 2) return undefined;
    body += bytes.toString('utf8', line + 2, line + 2 + size);
    at = line + 2 + size + 2;
    if (size === 0) return { body, length: at };
  }
}

/** The same request, its body after `spaces` spaces (Content-Length counts them). */
function padded(request: string, spaces: number): string {
  const at = request.indexOf('\r\n\r\n');
  const body = ' '.repeat(spaces) + request.slice(at + 4);
  return `${request.slice(0, at).replace(/Content-Length: \d+/, `Content-Length: ${body.length}`)}\r\n\r\n${body}`;
}

/** The same request with its body sent as two chunks (Transfer-Encoding: chunked). */
function chunked(request: string): string {
  const at = request.indexOf('\r\n\r\n');
  const head = request.slice(0, at).replace(/Content-Length: \d+/, 'Transfer-Encoding: chunked');
  const body = request.slice(at + 4);
  const half = Math.floor(body.length / 2);
  const chunk = (part: string) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`;
  return `${head}\r\n\r\n${chunk(body.slice(0, half))}${chunk(body.slice(half))}0\r\n\r\n`;
}

describe('the front door from the first connection on', () => {
  let dir: string;
  let ctx: DatabaseContext;
  let started: Awaited<ReturnType<typeof startHttp>>;
  /** requests Node's HTTP server read (the front door's never reach it) */
  let nodeRequests = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-db-front-first-'));
    const file = join(dir, 'tiny.db');
    const db = new Database(file);
    db.exec(
      "create table items (id integer primary key, label text not null); insert into items (label) values ('one');",
    );
    db.close();
    ctx = await openDatabase({ url: `sqlite:${file}` });
    const factory = createServerFactory(ctx, READ_TOOLS);
    started = await startHttp(factory, { host: '127.0.0.1', port: 0, direct: directTools(ctx, READ_TOOLS) });
    started.server.on('request', () => nodeRequests++);
  });
  afterAll(async () => {
    started?.server.closeAllConnections();
    started?.server.close();
    await ctx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a fresh server's first client is read by the front door, Origin and all; a foreign Host gets its 403 there too", async () => {
    const conn = new Connection(Number(new URL(started.url).port));
    try {
      const origin = 'Origin: http://localhost:5173\r\n';
      await conn.write(initialize().replace('Content-Type', `${origin}Content-Type`));
      const opened = await conn.read();
      expect(opened.status).toBe(200);
      const session = opened.headers['mcp-session-id']!;
      await conn.write(getItem(session, 2, 1).replace('Content-Type', `${origin}Content-Type`));
      expect(data((await conn.read()).body).result?.structuredContent).toMatchObject({ row: { label: 'one' } });
      expect(nodeRequests).toBe(0);

      await conn.write(getItem(session, 3, 1).replace('Host: 127.0.0.1', 'Host: evil.example'));
      expect((await conn.read()).status).toBe(403);
      await conn.write(getItem(session, 4, 1));
      expect(data((await conn.read()).body).result?.structuredContent).toMatchObject({ row: { label: 'one' } });
      expect(nodeRequests).toBe(0);
    } finally {
      conn.close();
    }
  });

  it('a foreign Origin is refused (403), never remembered as passed', async () => {
    const conn = new Connection(Number(new URL(started.url).port));
    try {
      for (let i = 0; i < 2; i++) {
        await conn.write(initialize().replace('Content-Type', 'Origin: http://evil.example\r\nContent-Type'));
        expect((await conn.read()).status).toBe(403);
      }
    } finally {
      conn.close();
    }
  });
});

describe('one admission: the front door and Node’s server answer a request alike', () => {
  let dir: string;
  let ctx: DatabaseContext;
  let started: Awaited<ReturnType<typeof startHttp>>;
  let port: number;
  /** requests Node's HTTP server read (the front door's never reach it) */
  let nodeRequests = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-db-front-admit-'));
    const file = join(dir, 'tiny.db');
    const db = new Database(file);
    db.exec(
      "create table items (id integer primary key, label text not null); insert into items (label) values ('one');",
    );
    db.close();
    ctx = await openDatabase({ url: `sqlite:${file}` });
    const factory = createServerFactory(ctx, READ_TOOLS);
    const direct = directTools(ctx, READ_TOOLS);
    started = await startHttp(factory, { host: '127.0.0.1', port: 0, direct, token: 'sekrit' });
    started.server.on('request', () => nodeRequests++);
    port = Number(new URL(started.url).port);
  });
  afterAll(async () => {
    started?.server.closeAllConnections();
    started?.server.close();
    await ctx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const auth = 'Authorization: Bearer sekrit\r\n';
  const deep = `${'['.repeat(300)}${']'.repeat(300)}`;
  it.each([
    ['another path', (r: string) => r.replace('POST /mcp', 'POST /other')],
    ['a foreign Host', (r: string) => r.replace('Host: 127.0.0.1', 'Host: evil.example')],
    ['a foreign Origin', (r: string) => r.replace(auth, `${auth}Origin: http://evil.example\r\n`)],
    ['no token', (r: string) => r.replace(auth, '')],
    ['a wrong token', (r: string) => r.replace('sekrit', 'wrong')],
    ['an unknown session', (r: string) => r.replace(auth, `${auth}Mcp-Session-Id: nope\r\n`)],
    ['DELETE without a session', () => `DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`],
    [
      'DELETE of an unknown session',
      () => `DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Mcp-Session-Id: x\r\n\r\n`,
    ],
    ['a compressed body', (r: string) => r.replace(auth, `${auth}Content-Encoding: gzip\r\n`)],
    ['JSON nested too deep', () => post(deep, auth)],
  ])('%s: the same status, headers and body on both paths', async (_, make) => {
    const request = make(initialize().replace('Content-Type', `${auth.trimEnd()}\r\nContent-Type`));
    const front = new Connection(port);
    const node = new Connection(port);
    try {
      const before = nodeRequests;
      await front.write(request);
      const fromFront = await front.read();
      expect(nodeRequests, 'answered by the front door').toBe(before);
      // `Connection: close` takes a request out of the front door's plain subset: Node reads it.
      await node.write(request.replace('Host:', 'Connection: close\r\nHost:'));
      const fromNode = await node.read();
      expect(nodeRequests, 'answered by Node').toBe(before + 1);
      expect(fromFront.status).toBeGreaterThanOrEqual(400);
      const seen = ({ status, headers, body }: typeof fromFront) => ({
        status,
        body,
        type: headers['content-type'],
        allow: headers.allow,
        challenge: headers['www-authenticate'],
      });
      expect(seen(fromFront)).toEqual(seen(fromNode));
    } finally {
      front.close();
      node.close();
    }
  });
});

describe('frontDoor takes Node’s connection machinery whatever its listener is named', () => {
  it('reads plain requests itself and hands the rest to Node, on a server whose listener was renamed', async () => {
    let nodeRequests = 0;
    const server = createServer((_req, res) => {
      nodeRequests++;
      res.end('node');
    });
    // As a Node version that names its listener otherwise would have it.
    const [own] = server.listeners('connection') as ((this: Server, socket: Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', function renamed(this: Server, socket: Socket) {
      own!.call(this, socket);
    });
    const answer: FrontAnswer = (request) =>
      request.url === '/plain' ? frontResponse({ status: 200, headers: {}, body: 'front' }, 5_000) : undefined;
    frontDoor(server, answer, { headersTimeoutMs: 5_000, keepAliveMs: 5_000, busyPoll: new BusyPoll(0) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const conn = new Connection((server.address() as AddressInfo).port);
    try {
      await conn.write(post('{}').replace('/mcp', '/plain'));
      expect((await conn.read()).body).toBe('front');
      expect(nodeRequests).toBe(0);
      await conn.write(post('{}').replace('/mcp', '/other'));
      expect((await conn.read()).body).toBe('node');
      expect(nodeRequests).toBe(1);
    } finally {
      conn.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
