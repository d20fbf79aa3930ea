import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { accessCheck, assertSafeBind } from '@mcp-db-bench/server';
import { Pool } from 'undici';
import { recordAnswer, recordFailure, type Sent } from './http-exchange.js';
import { badGateway, pathOf, relay, requestHeaders } from './http-forward.js';
import type { Recorder } from './recorder.js';

/** The largest request body passed on: a host's MCP message is far smaller; a larger one is answered 413. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** A request (headers and body) must arrive within this, or it is answered 408: a stalled sender holds nothing for long. */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * A transparent MCP proxy over Streamable HTTP: every request goes to `target` as it came
 * (method, headers, body), every answer back as it streams, and each exchange to the recorder.
 * The answer is passed on chunk by chunk, so an SSE stream (and its progress events) reaches the
 * host as the server writes it.
 *
 * It is on the path of every call a host makes, so it does as little as it can there: one
 * connection pool to the one target, driven through undici's callback interface (no response
 * stream, promise or URL per request), the answer's bytes passed on as they come, and the
 * parsing of the messages and the trace lines left to the recorder's batches (`later`).
 *
 * It serves what the server serves, so it admits what the server admits: the server's own checks
 * of Host and Origin (403) and of the bearer token (401) judge every request before it goes on,
 * and like the server it refuses to listen beyond loopback without a token. The target sees the
 * proxy as its client (undici sets Host to the target's), and the host's other headers as they
 * came, its Authorization too.
 */
export async function recordHttp(options: {
  target: string;
  host: string;
  port: number;
  /** bearer token every request must carry; required when listening beyond loopback */
  token?: string;
  recorder: Recorder;
  /** see REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
}): Promise<{ server: Server; url: string }> {
  assertSafeBind(options);
  const access = accessCheck({ host: options.host, token: options.token });
  const target = new URL(options.target);
  // Every request goes to the one origin: a pool of its own, not an agent looking the origin up per request.
  const pool = new Pool(target.origin, { keepAliveTimeout: 60_000, connections: 256 });
  const server = createServer(timeouts(options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS));
  const proxy: Proxy = {
    target,
    pool,
    recorder: options.recorder,
    connectionKey: connectionKeys(server, options.recorder),
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (access.admits(req, res)) void proxyRequest(proxy, req, res);
  });
  server.once('close', () => void pool.close());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://${options.host}:${port}${target.pathname}` };
}

/** What every request is passed on through. */
interface Proxy {
  target: URL;
  pool: Pool;
  recorder: Recorder;
  /** the session of a host connection's requests when the server issues no session id */
  connectionKey: (socket: Socket) => string;
}

/** node:http's limits on a request's arrival: the whole request within `requestTimeout`, its headers sooner. */
const timeouts = (requestTimeout: number) => ({
  requestTimeout,
  headersTimeout: Math.min(10_000, requestTimeout),
  connectionsCheckingInterval: Math.min(1_000, requestTimeout / 4),
});

/**
 * Names each host connection (`conn:N`, in the order of their first request): a host without
 * sessions (the 2026 era, or a server that issues none) is one session per connection, ended
 * when it closes. Through the recorder's queue, so that it ends after the connection's last exchange.
 */
function connectionKeys(server: Server, recorder: Recorder): (socket: Socket) => string {
  const keys = new WeakMap<Socket, string>();
  let count = 0;
  server.on('connection', (socket: Socket) => {
    socket.once('close', () => {
      const key = keys.get(socket);
      const at = recorder.clock();
      if (key) recorder.later(() => recorder.end(key, at));
    });
  });
  return (socket) => {
    let key = keys.get(socket);
    if (key === undefined) {
      key = `conn:${++count}`;
      keys.set(socket, key);
    }
    return key;
  };
}

/** An admitted request: its body read within the limit, then passed on, its answer back and the exchange recorded. */
async function proxyRequest(proxy: Proxy, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const startedAt = proxy.recorder.clock();
  const body = await readBody(req);
  // The host went away mid-request: nothing to pass on, nothing to answer.
  if (body === 'aborted') return void res.destroy();
  if (body === 'too large') return tooLarge(req, res);
  const socketKey = proxy.connectionKey(req.socket);
  const { headers, sessionId } = requestHeaders(req.rawHeaders);
  const key = sessionId === undefined ? socketKey : `id:${sessionId}`;
  forward(proxy, req, res, headers, { key, method: req.method ?? 'GET', sessionId, body, startedAt });
}

/** A 413 for a body past MAX_REQUEST_BYTES, and the connection closed: the rest of the body is never read. */
function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: `mcp-db-bench record: a request body past ${MAX_REQUEST_BYTES} bytes` }));
  req.socket.destroySoon();
}

/** The request to the target, its answer relayed back, and the exchange queued for the recorder. */
function forward(proxy: Proxy, req: IncomingMessage, res: ServerResponse, headers: string[], sent: Sent): void {
  const { target, pool, recorder } = proxy;
  const fail = (error: Error) => {
    badGateway(res, target, error);
    // through the same queue as the answered ones, so the trace keeps their order
    const endedAt = recorder.clock();
    if (sent.method === 'POST') recorder.later(() => recordFailure(recorder, sent, endedAt));
  };
  const handler = relay(res, {
    end: (answer) => {
      const endedAt = recorder.clock();
      // Read and written to the trace later, in a batch: recording adds nothing to the host's wait.
      recorder.later(() => recordAnswer(recorder, sent, answer, endedAt));
    },
    error: fail,
  });
  try {
    const body = sent.body.length ? sent.body : null;
    pool.dispatch({ path: pathOf(req.url, target), method: sent.method, headers, body }, handler);
  } catch (error) {
    // undici reports a bad request through onResponseError; this is for anything it throws instead
    fail(error as Error);
  }
}

/** The request's body, or why there is none: past MAX_REQUEST_BYTES (the rest left unread), or the host went away. */
function readBody(req: IncomingMessage): Promise<Buffer | 'too large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_REQUEST_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve('too large');
    };
    req.on('data', onData);
    // a host's message is one chunk: no copy then
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', () => resolve('aborted'));
  });
}
