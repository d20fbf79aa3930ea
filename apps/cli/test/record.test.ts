import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceLine, TraceRequest } from '@mcp-db-bench/contract';
import { seed } from '@mcp-db-bench/dataset';
import { createClient } from '@mcp-db-bench/loadgen';
import { SERVER_BIN } from '@mcp-db-bench/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sseMessages } from '../src/record/http-exchange.js';
import { MAX_REQUEST_BYTES, recordHttp } from '../src/record/http-proxy.js';
import { Recorder } from '../src/record/recorder.js';
import { type ServerProcess, startServer } from '../src/serving/server-process.js';
import { BIN, runCli } from './support/cli.js';
import { readTraceLines, requestsOf, startRecorder } from './support/recorder.js';

/**
 * `mcp-db-bench record` between real clients (the official SDK's, and ours) and our real server,
 * over HTTP and over stdio: what passes through is unchanged, and the trace says what happened.
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-record-'));
const dbUrl = `sqlite:${join(dir, 'bench.db')}`;
let server: ServerProcess;

beforeAll(async () => {
  await seed({ url: dbUrl, scale: 0.001, seed: 1, indexes: 'optimized', force: false });
  server = await startServer(dbUrl, ['--workers', '1']);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const read = readTraceLines;
const requests = requestsOf;

describe('record over HTTP', () => {
  it('passes the official SDK client through unchanged and writes its session, shaped', async () => {
    const file = join(dir, 'http.jsonl');
    const recorder = await startRecorder(['--target', server.endpoint, '-o', file]);
    const client = createClient(
      { kind: 'http', url: recorder.url },
      { client: 'sdk', protocol: 'legacy', clientInfo: { name: 'a-host', version: '9' } },
    );
    try {
      await client.open();
      const got = await client.callTool('get', { table: 'orders', key: 1 });
      expect(got.isError).toBe(false);
      expect(got.data).toMatchObject({ found: true, row: { id: 1 } });
      const filtered = await client.callTool('query', { table: 'orders', filter: "status = 'paid'", limit: 3 });
      expect((filtered.data as { rows: unknown[] }).rows).toHaveLength(3);
      expect((await client.callTool('get', { table: 'no_such_table', key: 1 })).isError).toBe(true);
    } finally {
      await client.close();
    }
    recorder.child.kill('SIGINT');
    expect(await recorder.exited).toBe(130);

    const lines = read(file);
    expect(lines[0]).toMatchObject({ type: 'trace', version: 1, values: 'shape', target: server.endpoint });
    expect(lines[1]).toMatchObject({
      type: 'session',
      session: 's1',
      protocolVersion: expect.stringMatching(/^2025-/),
      client: { name: 'a-host', version: '9' },
    });
    const calls = requests(lines).filter((r) => r.method === 'tools/call');
    expect(calls.map((c) => [c.tool, c.arguments, c.rows, c.error])).toEqual([
      ['get', { table: 'orders', key: '<integer>' }, 1, undefined],
      [
        'query',
        { table: 'orders', filter: { column: 'status', op: '=', value: '<string 4>' }, limit: '<integer>' },
        3,
        undefined,
      ],
      ['get', { table: 'no_such_table', key: '<integer>' }, undefined, 'tool:unknown_table'],
    ]);
    for (const call of calls) {
      expect(call.session).toBe('s1');
      expect(call.durationMs).toBeGreaterThan(0);
      expect(call.thinkMs).toBeGreaterThanOrEqual(0);
      expect(call.bytes.request).toBeGreaterThan(0);
      expect(call.bytes.response).toBeGreaterThan(0);
    }
    expect(requests(lines).map((r) => r.method)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/call',
      'tools/call',
      'tools/call',
    ]);
    // The SDK client ends its session with DELETE: the trace says so; the server's id is written nowhere.
    expect(lines.at(-1)).toMatchObject({ type: 'end', session: 's1' });
    expect(readFileSync(file, 'utf8')).not.toMatch(/mcp-session-id|"id:/i);
  }, 60_000);

  it('keeps sessions apart, and with --values keep writes the arguments as sent', async () => {
    const file = join(dir, 'two.jsonl');
    const recorder = await startRecorder(['--target', server.endpoint, '-o', file, '--values', 'keep']);
    const clients = [0, 1].map(() =>
      createClient({ kind: 'http', url: recorder.url }, { client: 'lean', protocol: 'legacy' }),
    );
    try {
      for (const client of clients) await client.open();
      await clients[1]!.callTool('get', { table: 'customers', key: 2 });
      await clients[0]!.callTool('get', { table: 'orders', key: 5 });
    } finally {
      for (const client of clients) await client.close();
    }
    recorder.child.kill('SIGINT');
    await recorder.exited;
    const calls = requests(read(file)).filter((r) => r.method === 'tools/call');
    expect(calls.map((c) => [c.session, c.arguments])).toEqual([
      ['s2', { table: 'customers', key: 2 }],
      ['s1', { table: 'orders', key: 5 }],
    ]);
  }, 60_000);

  it('answers 502 with the reason when the server is not there, and records the failure', async () => {
    const file = join(dir, 'down.jsonl');
    const recorder = await startRecorder(['--target', 'http://127.0.0.1:1/mcp', '-o', file]);
    const response = await fetch(recorder.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(502);
    expect(await response.text()).toMatch(/did not answer/);
    recorder.child.kill('SIGINT');
    // the exit code and the whole trace in the message, so that a failure here explains itself
    expect(await recorder.exited, recorder.stderr()).toBe(130);
    expect(requests(read(file)), readFileSync(file, 'utf8')).toEqual([
      expect.objectContaining({ method: 'tools/list', error: 'network' }),
    ]);
  }, 30_000);
});

describe('record over HTTP, against a hostile host', () => {
  /** Raw bytes to the proxy; resolves with what came back when the proxy closes the connection (or after 5 s). */
  async function raw(url: string, send: (socket: ReturnType<typeof connect>) => void): Promise<string> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk;
    });
    send(socket);
    await Promise.race([once(socket, 'close'), new Promise((r) => setTimeout(r, 5_000))]);
    socket.destroy();
    return answer;
  }

  it('refuses an oversized body, times out a stalled one, survives an abandoned one, and keeps serving', async () => {
    const lines: TraceLine[] = [];
    const recorder = new Recorder((line) => lines.push(line), 'shape', 'test');
    const { server: proxy, url } = await recordHttp({
      target: server.endpoint,
      host: '127.0.0.1',
      port: 0,
      recorder,
      requestTimeoutMs: 500,
    });
    const { pathname } = new URL(url);
    const head = (length: number) =>
      `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n\r\n`;
    try {
      const big = await raw(url, (socket) => {
        socket.write(head(MAX_REQUEST_BYTES + 1024));
        socket.write(Buffer.alloc(MAX_REQUEST_BYTES + 1024, 0x20));
      });
      expect(big).toMatch(/^HTTP\/1\.1 413/);
      const stalled = await raw(url, (socket) => socket.write(`${head(1000)}{"jsonrpc":`));
      expect(stalled).toMatch(/^HTTP\/1\.1 408/);
      await raw(url, (socket) => {
        socket.write(`${head(1000)}{"jsonrpc":`);
        socket.destroy();
      });
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(answer.status).toBe(200);
      expect(await answer.text()).toMatch(/list_tables/);
      // Only the whole request reached the recorder (its lines all written once it stops).
      recorder.stop(recorder.clock());
      expect(requests(lines).map((r) => r.method)).toEqual(['tools/list']);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  }, 30_000);
});

describe('record over HTTP, guarding what it serves as the server does', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });
  /** A raw POST of `initialize` with these headers (node:http: fetch may not set Host). */
  const post = (url: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        url,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        },
        (response) => {
          response.resume();
          response.once('end', () => resolve(response.statusCode!));
        },
      );
      request.once('error', reject).end(initialize);
    });
  const proxyOn = async (token?: string) => {
    const recorder = new Recorder(() => {}, 'shape', 'test');
    return recordHttp({ target: server.endpoint, host: '127.0.0.1', port: 0, token, recorder });
  };

  it('refuses a hostile Host or Origin with 403, as the server itself does, and passes a loopback one', async () => {
    const { server: proxy, url } = await proxyOn();
    try {
      for (const endpoint of [server.endpoint, url]) {
        expect(await post(endpoint, { host: 'evil.example' }), endpoint).toBe(403);
        expect(await post(endpoint, { origin: 'http://evil.example' }), endpoint).toBe(403);
        expect(await post(endpoint, { origin: 'http://127.0.0.1' }), endpoint).toBe(200);
      }
    } finally {
      proxy.close();
    }
  });

  it('with --token, answers 401 to a request without the bearer token and passes one with it', async () => {
    const { server: proxy, url } = await proxyOn('a-token-for-the-proxy');
    try {
      expect(await post(url, {})).toBe(401);
      expect(await post(url, { authorization: 'Bearer another-token' })).toBe(401);
      expect(await post(url, { authorization: 'Bearer a-token-for-the-proxy' })).toBe(200);
    } finally {
      proxy.close();
    }
  });

  it('refuses to listen beyond loopback without --token (exit 2), as the server does', async () => {
    const file = join(dir, 'open.jsonl');
    const run = await runCli(['record', '--target', server.endpoint, '--host', '0.0.0.0', '--port', '0', '-o', file], {
      env: { ...process.env, MCP_DB_TOKEN: '' },
      timeoutMs: 20_000,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /refusing to listen on 0\.0\.0\.0 without --token: only loopback addresses may go unauthenticated/,
    );
    expect(existsSync(file)).toBe(false);
    // with a token it listens there, and a request without the token gets 401
    const recorder = await startRecorder([
      '--target',
      server.endpoint,
      '--host',
      '0.0.0.0',
      '--token',
      'a-token-for-the-proxy',
      '-o',
      file,
    ]);
    const { port } = new URL(recorder.url);
    expect(await post(`http://127.0.0.1:${port}/mcp`, {})).toBe(401);
    expect(await post(`http://127.0.0.1:${port}/mcp`, { authorization: 'Bearer a-token-for-the-proxy' })).toBe(200);
    recorder.child.kill('SIGINT');
    expect(await recorder.exited).toBe(130);
  }, 30_000);
});

describe('record over HTTP, streaming', () => {
  it('passes an SSE answer on event by event, as the server writes it, and records the answer', async () => {
    // A server that sends a progress event, then holds the answer until the host has read that event.
    let hostGotProgress!: () => void;
    const progressRead = new Promise<void>((resolve) => {
      hostGotProgress = resolve;
    });
    let answered = false;
    const upstream = createServer((req, res) => {
      req.resume();
      req.once('end', async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const event = (message: object) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
        res.write(event({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }));
        await Promise.race([progressRead, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        answered = true;
        res.end(event({ jsonrpc: '2.0', id: 7, result: { content: [], structuredContent: { rows: [1, 2] } } }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const lines: TraceLine[] = [];
    const recorder = new Recorder((line) => lines.push(line), 'keep', 'test');
    const { server: proxy, url } = await recordHttp({
      target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`,
      host: '127.0.0.1',
      port: 0,
      recorder,
    });
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: {} } }),
      });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
      // the progress event came through while the server still held its answer
      expect(answered).toBe(false);
      expect(text).toMatch(/notifications\/progress/);
      hostGotProgress();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
      expect(text).toMatch(/"id":7/);
      // the trace line is written after the answer, at the latest when the recording stops
      recorder.stop(recorder.clock());
      expect(requests(lines)).toEqual([expect.objectContaining({ method: 'tools/call', tool: 'slow', rows: 2 })]);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
      upstream.closeAllConnections();
      upstream.close();
    }
  }, 30_000);
});

describe('record over stdio', () => {
  it('sits between a stdio host and the server, and writes the session', async () => {
    const file = join(dir, 'stdio.jsonl');
    const client = createClient(
      {
        kind: 'stdio',
        command: process.execPath,
        args: [BIN, 'record', '-o', file, '--target-cmd', `${process.execPath} ${SERVER_BIN} --url ${dbUrl}`],
      },
      { client: 'lean', protocol: 'legacy' },
    );
    try {
      await client.open();
      const answer = await client.callTool('query', { table: 'customers', limit: 2 });
      expect((answer.data as { rows: unknown[] }).rows).toHaveLength(2);
    } finally {
      await client.close();
    }
    // The recorder ends when its host closes stdin: wait for the trace's last line.
    let lines: TraceLine[] = [];
    for (let i = 0; i < 100 && lines.at(-1)?.type !== 'end'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      lines = read(file);
    }
    expect(lines[0]).toMatchObject({ type: 'trace', target: process.execPath });
    expect(requests(lines).find((r) => r.method === 'tools/call')).toMatchObject({
      session: 's1',
      tool: 'query',
      arguments: { table: 'customers', limit: '<integer>' },
      rows: 2,
    });
    expect(lines.at(-1)).toMatchObject({ type: 'end', session: 's1' });
  }, 60_000);
});

describe('sseMessages', () => {
  it("reads each event's data lines, LF or CRLF, joined, and skips what is not JSON", () => {
    expect(sseMessages('event: message\ndata: {"id":1}\n\n')).toEqual([{ id: 1 }]);
    expect(sseMessages('data: [1,\r\ndata:2]\r\n\r\n: comment\r\ndata: {"a":\ndata: "b"}')).toEqual([
      [1, 2],
      { a: 'b' },
    ]);
    expect(sseMessages('data: not json\n\ndata:\n\nevent: x\n\ndata:7\n\n\n')).toEqual([7]);
    expect(sseMessages('')).toEqual([]);
  });
});

describe('Recorder', () => {
  it('drops the arguments under --values drop and times think time from the previous answer', () => {
    const lines: TraceLine[] = [];
    let now = 0;
    const recorder = new Recorder(
      (l) => lines.push(l),
      'drop',
      'x',
      () => now,
    );
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', clientInfo: { name: 'h', version: '1' } },
    };
    recorder.exchange({
      key: 'c',
      sent: [init],
      received: [{ jsonrpc: '2.0', id: 1, result: {} }],
      startedAt: 0,
      endedAt: 2,
      bytes: { request: 10, response: 20 },
    });
    now = 10;
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get', arguments: { table: 't', key: 'secret' } },
    };
    recorder.exchange({
      key: 'c',
      sent: [call],
      received: [{ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'no' } }],
      startedAt: 7,
      endedAt: 9,
      bytes: { request: 10, response: 20 },
    });
    const [, , first, second] = lines as [TraceLine, TraceLine, TraceRequest, TraceRequest];
    expect(first).toMatchObject({ method: 'initialize', thinkMs: 0, durationMs: 2 });
    expect(second).toMatchObject({
      method: 'tools/call',
      tool: 'get',
      thinkMs: 5,
      durationMs: 2,
      error: 'jsonrpc_-32602',
    });
    expect(second.arguments).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});
