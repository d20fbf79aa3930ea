import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent, request } from 'undici';
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
 */
export async function recordHttp(options: {
  target: string;
  host: string;
  port: number;
  recorder: Recorder;
  /** see REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
}): Promise<{ server: Server; url: string }> {
  const target = new URL(options.target);
  const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: 256 });
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
    const socketKey = connections.get(req.socket) ?? `conn:${++connectionCount}`;
    connections.set(req.socket, socketKey);
    const sessionId = header(req.headers, 'mcp-session-id');
    const key = sessionId === undefined ? socketKey : `id:${sessionId}`;
    const sent = parseJson(body);
    try {
      const answer = await request(new URL(req.url ?? '/', target), {
        method: req.method as 'POST',
        headers: forwardable(req.headers),
        body: body.length ? body : undefined,
        dispatcher,
      });
      const headers = forwardable(answer.headers as IncomingHttpHeaders);
      res.writeHead(answer.statusCode, headers);
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let bytes = 0;
      for await (const chunk of answer.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (keptBytes < KEEP_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
        res.write(chunk);
      }
      res.end();
      const type = String(answer.headers['content-type'] ?? '');
      const text = Buffer.concat(kept).toString('utf8');
      const received = type.startsWith('text/event-stream') ? sseMessages(text) : parseJson(Buffer.from(text));
      if (req.method === 'DELETE' && sessionId !== undefined) return recorder.end(key, recorder.clock());
      if (req.method === 'GET') {
        const messages = type.startsWith('text/event-stream') ? received.length : 0;
        const endedAt = recorder.clock();
        return recorder.stream({ key, startedAt, endedAt, status: answer.statusCode, messages });
      }
      if (req.method !== 'POST') return;
      const issued = header(answer.headers as IncomingHttpHeaders, 'mcp-session-id');
      recorder.exchange({
        key,
        sent,
        received,
        startedAt,
        endedAt: recorder.clock(),
        bytes: { request: body.length, response: bytes },
        status: answer.statusCode,
        issuedSession: sessionId === undefined ? issued : undefined,
      });
    } catch (error) {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: `mcp-db-bench record: the server at ${target.origin} did not answer: ${(error as Error).message}`,
          }),
        );
      } else {
        res.destroy();
      }
      if (req.method === 'POST')
        recorder.exchange({
          key,
          sent,
          received: [],
          startedAt,
          endedAt: recorder.clock(),
          bytes: { request: body.length, response: 0 },
          failed: true,
        });
    }
  });
  server.on('connection', (socket: Socket) => {
    // A host without sessions (the 2026 era, or a server that issues none) is one session per connection.
    socket.once('close', () => {
      const key = connections.get(socket);
      if (key) recorder.end(key, recorder.clock());
    });
  });
  server.once('close', () => void dispatcher.close());
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
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', () => resolve('aborted'));
  });
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP.has(name.toLowerCase())) out[name] = value;
  return out;
}

/** A body's messages: one object, or a batch's array; nothing when it is not JSON. */
function parseJson(bytes: Buffer): unknown[] {
  if (bytes.length === 0) return [];
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return Array.isArray(value) ? value : [value];
  } catch {
    return [];
  }
}

/** The JSON messages of an SSE stream's `data:` fields (an event's lines joined, as the standard says). */
export function sseMessages(text: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line[5] === ' ' ? 6 : 5))
      .join('\n');
    if (!data) continue;
    try {
      messages.push(JSON.parse(data));
    } catch {
      // not JSON: an event the recorder has no use for
    }
  }
  return messages;
}
