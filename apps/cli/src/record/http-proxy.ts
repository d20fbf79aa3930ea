import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { accessCheck, assertSafeBind } from '@mcp-db-bench/server';
import { type Dispatcher, Pool } from 'undici';
import type { Recorder } from './recorder.js';

/** Headers that belong to one hop, not to the request: the proxy's own connection sets them. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);
/** The most of an answer kept to read its messages from; the bytes past it are passed on and counted. */
const KEEP_BYTES = 4 * 1024 * 1024;
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
  const { recorder } = options;
  const connections = new WeakMap<Socket, string>();
  let connectionCount = 0;

  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const timeouts = {
    requestTimeout,
    headersTimeout: Math.min(10_000, requestTimeout),
    connectionsCheckingInterval: Math.min(1_000, requestTimeout / 4),
  };
  const server = createServer(timeouts, async (req, res) => {
    if (!access.admits(req, res)) return;
    const startedAt = recorder.clock();
    const body = await readBody(req);
    // The host went away mid-request: nothing to pass on, nothing to answer.
    if (body === 'aborted') return void res.destroy();
    if (body === 'too large') {
      res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: `mcp-db-bench record: a request body past ${MAX_REQUEST_BYTES} bytes` }));
      req.socket.destroySoon();
      return;
    }
    let socketKey = connections.get(req.socket);
    if (socketKey === undefined) {
      socketKey = `conn:${++connectionCount}`;
      connections.set(req.socket, socketKey);
    }
    const { headers, sessionId } = requestHeaders(req.rawHeaders);
    const key = sessionId === undefined ? socketKey : `id:${sessionId}`;
    const method = req.method ?? 'GET';

    /** The request failed before or during its answer: 502 if nothing went out yet, and a failed exchange. */
    const fail = (error: Error) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: `mcp-db-bench record: the server at ${target.origin} did not answer: ${error.message}`,
          }),
        );
      } else {
        res.destroy();
      }
      // through the same queue as the answered ones, so the trace keeps their order
      const endedAt = recorder.clock();
      if (method === 'POST')
        recorder.later(() =>
          recorder.exchange({
            key,
            sent: parseJson(body),
            received: [],
            startedAt,
            endedAt,
            bytes: { request: body.length, response: 0 },
            failed: true,
          }),
        );
    };

    let status = 0;
    let answerHeaders: IncomingHttpHeaders = {};
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bytes = 0;
    const handler: Dispatcher.DispatchHandler = {
      // undici requires it; nothing to do before the request goes out
      onRequestStart() {},
      onResponseStart(_controller, statusCode, headers) {
        status = statusCode;
        answerHeaders = headers;
        res.writeHead(statusCode, responseHeaders(headers));
      },
      onResponseData(_controller, chunk) {
        bytes += chunk.length;
        if (keptBytes < KEEP_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
        // Passed on at once, as the server wrote it (an SSE event reaches the host before the stream ends).
        res.write(chunk);
      },
      onResponseEnd() {
        res.end();
        const endedAt = recorder.clock();
        // Read and written to the trace later, in a batch: recording adds nothing to the host's wait.
        recorder.later(() => record(endedAt));
      },
      onResponseError(_controller, error) {
        fail(error);
      },
    };

    /** The exchange to the recorder, once the answer has ended. */
    const record = (endedAt: number) => {
      if (method === 'DELETE' && sessionId !== undefined) return recorder.end(key, endedAt);
      if (method !== 'GET' && method !== 'POST') return;
      const type = header(answerHeaders, 'content-type') ?? '';
      const sse = type.startsWith('text/event-stream');
      const text = (kept.length === 1 ? kept[0]! : Buffer.concat(kept)).toString('utf8');
      if (method === 'GET') {
        const messages = sse ? sseMessages(text).length : 0;
        return recorder.stream({ key, startedAt, endedAt, status, messages });
      }
      const issued = header(answerHeaders, 'mcp-session-id');
      recorder.exchange({
        key,
        sent: parseJson(body),
        received: sse ? sseMessages(text) : parseText(text),
        startedAt,
        endedAt,
        bytes: { request: body.length, response: bytes },
        status,
        issuedSession: sessionId === undefined ? issued : undefined,
      });
    };

    try {
      pool.dispatch({ path: pathOf(req.url, target), method, headers, body: body.length ? body : null }, handler);
    } catch (error) {
      // undici reports a bad request through onResponseError; this is for anything it throws instead
      fail(error as Error);
    }
  });
  server.on('connection', (socket: Socket) => {
    // A host without sessions (the 2026 era, or a server that issues none) is one session per connection.
    // Through the recorder's queue, so that it ends after the connection's last exchange.
    socket.once('close', () => {
      const key = connections.get(socket);
      const at = recorder.clock();
      if (key) recorder.later(() => recorder.end(key, at));
    });
  });
  server.once('close', () => void pool.close());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://${options.host}:${port}${target.pathname}` };
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

/**
 * The path asked for, on the target: the request line's path as it came; an absolute form
 * (`GET http://elsewhere/x`) keeps only its path, so the proxy never reaches another origin.
 */
function pathOf(url: string | undefined, target: URL): string {
  if (url?.startsWith('/')) return url;
  const { pathname, search } = new URL(url ?? '/', target);
  return pathname + search;
}

/** The host's headers to pass on (its raw list, names and repeats as sent, one hop's dropped), and its session id. */
function requestHeaders(raw: readonly string[]): { headers: string[]; sessionId: string | undefined } {
  const headers: string[] = [];
  let sessionId: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP.has(name)) continue;
    if (name === 'mcp-session-id') sessionId ??= raw[i + 1];
    headers.push(raw[i]!, raw[i + 1]!);
  }
  return { headers, sessionId };
}

/** The server's headers to pass back, one hop's dropped. */
function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP.has(name)) out[name] = value;
  }
  return out;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A body's messages: one object, or a batch's array; nothing when it is not JSON. */
function parseJson(bytes: Buffer): unknown[] {
  return bytes.length === 0 ? [] : parseText(bytes.toString('utf8'));
}

function parseText(text: string): unknown[] {
  if (text.length === 0) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

/**
 * The JSON messages of an SSE stream's `data:` fields (an event's lines joined, as the standard
 * says; lines end with LF or CRLF, a blank line ends an event). One pass with indexOf: this runs
 * on every answer, and splitting the whole text with regular expressions cost more than the parse.
 */
export function sseMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  let data: string | undefined;
  const dispatch = () => {
    if (data) {
      try {
        messages.push(JSON.parse(data));
      } catch {
        // not JSON: an event the recorder has no use for
      }
    }
    data = undefined;
  };
  for (let at = 0; at <= text.length; ) {
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    const next = end + 1;
    if (end > at && text.charCodeAt(end - 1) === 13 && next <= text.length) end--; // CRLF
    if (end === at) dispatch();
    else if (text.startsWith('data:', at)) {
      const value = text.slice(at + (text.charCodeAt(at + 5) === 32 ? 6 : 5), end);
      data = data === undefined ? value : `${data}\n${value}`;
    }
    at = next;
  }
  dispatch();
  return messages;
}
