import { MODERN_REVISION } from '@mcp-db-bench/contract';
import { Client, type Dispatcher } from 'undici';
import { type Era, McpCallError, type Protocol } from './client.js';
import { Session } from './mcp-session.js';
import type { Transport } from './transport.js';
import { bodySummary, type ClientInfo, DEFAULT_TIMEOUT_MS, httpFailure, type RpcMessage } from './wire.js';

export interface LeanHttpOptions {
  /** the Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp */
  url: string;
  protocol: Protocol;
  clientInfo?: ClientInfo;
  /** sent as `Authorization: Bearer <token>` */
  token?: string;
  /** extra headers on every request */
  headers?: Record<string, string>;
  /**
   * per call: bounds connecting, the wait for the response headers and each silence in the
   * body (undici's timers, ~0.5 s resolution past 1 s); 0 = none. Default 30 s.
   */
  timeoutMs?: number;
}

/** Replaced sessions ended together (see begin): far below any server's session limit. */
const REPLACED_BATCH = 64;

/** Header objects flattened once into undici's `[name, value, ...]` form, which it walks without Object.keys. */
type Headers = string[];
type HeaderObject = Record<string, string>;

/** The headers of one kind of request; `handshake` marks `initialize`, whose answer may open a session. */
interface HttpRoute {
  headers: Headers;
  handshake: boolean;
  /** the 2025-era session the headers name: a 404 to them means the server ended it */
  session?: string;
}

/**
 * The load generator's client: our session over one keep-alive undici connection, with header
 * lists built once per method and tool, so a call costs about one JSON.stringify of the
 * arguments and one JSON.parse of the answer on top of undici.
 */
export class LeanHttpClient extends Session<HttpRoute> {
  constructor(options: LeanHttpOptions) {
    super(new HttpTransport(options), options);
  }
}

/** The lean client's Streamable HTTP transport alone, for a caller that builds its own messages (a replay). */
export function createHttpTransport(options: LeanHttpOptions): Transport<unknown> {
  return new HttpTransport(options);
}

/** Streamable HTTP: the modern era's headers (`Mcp-Method`, `Mcp-Name`), or a 2025 session's, and SSE answers. */
class HttpTransport implements Transport<HttpRoute> {
  readonly unansweredIsLegacy = false;
  readonly #http: Client;
  /** a second connection, made on first need, that ends replaced 2025-era sessions off the calls' path */
  #side: Client | undefined;
  /** the headers of replaced sessions not ended yet */
  #replaced: Headers[] = [];
  readonly #origin: string;
  readonly #path: string;
  readonly #timeoutMs: number;
  readonly #base: HeaderObject;
  readonly #handshake: HttpRoute;
  /** per method and tool name */
  readonly #modern = new Map<string, HttpRoute>();
  #sessionId: string | undefined;
  /** every request of a 2025 session: negotiated revision and session id are known after initialize */
  #legacy: HttpRoute = { headers: [], handshake: false };

  constructor(options: LeanHttpOptions) {
    const url = new URL(options.url);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#http = new Client(url.origin, {
      keepAliveTimeout: 60_000,
      pipelining: 1,
      ...(this.#timeoutMs > 0 ? { connectTimeout: this.#timeoutMs } : {}),
    });
    this.#origin = url.origin;
    this.#path = url.pathname + url.search;
    this.#base = {
      ...options.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (options.token) this.#base.authorization = `Bearer ${options.token}`;
    this.#handshake = { headers: flatten(this.#base), handshake: true };
  }

  begin(): void {
    // Opening again replaces the session. The old one is ended, as a host would, but in batches on
    // a side connection: a benchmark that starts sessions over and over then times the starts, not
    // the ends, and never holds more than a batch of sessions the server must keep.
    if (this.#sessionId === undefined) return;
    this.#replaced.push(this.#legacy.headers);
    if (this.#replaced.length >= REPLACED_BATCH) void this.#endReplaced();
    this.#sessionId = undefined;
  }

  route(era: Era, method: string, tool?: string): HttpRoute {
    if (era === 'legacy') return method === 'initialize' ? this.#handshake : this.#legacy;
    const key = tool === undefined ? method : `${method} ${tool}`;
    let route = this.#modern.get(key);
    if (route === undefined) {
      const headers: HeaderObject = { ...this.#base, 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': method };
      if (tool !== undefined) headers['mcp-name'] = tool;
      route = { headers: flatten(headers), handshake: false };
      this.#modern.set(key, route);
    }
    return route;
  }

  negotiated(version: string): void {
    const headers: HeaderObject = { ...this.#base, 'mcp-protocol-version': version };
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    this.#legacy = { headers: flatten(headers), handshake: false, session: this.#sessionId };
  }

  abandon(): void {
    this.#sessionId = undefined;
  }

  /**
   * One POST. Resolves with the JSON-RPC message answering `id`, rejects with McpCallError:
   * timeout, network, http_<status> or protocol.
   */
  async request(body: string, id: number, route: HttpRoute): Promise<RpcMessage> {
    try {
      const res = await this.#post(body, route.headers);
      if (route.handshake) {
        const session = res.headers['mcp-session-id'];
        if (typeof session === 'string' && session !== '') this.#sessionId = session;
      }
      if (res.statusCode >= 400) throw await this.#httpError(res, route);
      const type = res.headers['content-type'];
      if (typeof type === 'string' && type.startsWith('text/event-stream')) {
        // A stream of known length (one event, as our server sends) is read whole; an open one event by event.
        return res.headers['content-length'] !== undefined
          ? sseAnswer(await res.body.text(), id)
          : await readSse(res.body, id);
      }
      const msg = parseJson(await res.body.text());
      if (typeof msg !== 'object' || msg === null || !('result' in msg || 'error' in msg)) {
        throw new McpCallError(
          'protocol',
          `the answer is JSON but not JSON-RPC 2.0 (${JSON.stringify(msg).slice(0, 80)}): is ${this.#origin}${this.#path} an MCP endpoint?`,
        );
      }
      if (msg.id !== id)
        throw new McpCallError('protocol', `response id ${String(msg.id)} does not answer request ${id}`);
      return msg;
    } catch (error) {
      throw this.#callError(error);
    }
  }

  async notify(body: string, route: HttpRoute): Promise<void> {
    try {
      const res = await this.#post(body, route.headers);
      if (res.statusCode >= 400) throw await this.#httpError(res, route);
      await res.body.dump();
    } catch (error) {
      throw this.#callError(error);
    }
  }

  async close(): Promise<void> {
    // A 2025 server that handed out a session expects it ended; best effort, never fatal.
    if (this.#sessionId !== undefined) {
      this.#sessionId = undefined;
      await endSession(this.#http, this.#path, this.#legacy.headers);
    }
    await this.#endReplaced();
    await this.#http.close().catch(() => this.#http.destroy());
    await this.#side?.close().catch(() => this.#side?.destroy());
  }

  #post(body: string, headers: Headers): Promise<Dispatcher.ResponseData> {
    // undici's own header and body-idle timers, not an AbortSignal: they are armed on every
    // request anyway, while a controller plus a timer per call cost ~20% more client CPU.
    return this.#http.request({
      path: this.#path,
      method: 'POST',
      headers,
      body,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    });
  }

  /** An error status; a 404 to a session's request means the server ended it, so it is forgotten here (never DELETEd). */
  #httpError(res: Dispatcher.ResponseData, route: HttpRoute): Promise<McpCallError> {
    const ended = res.statusCode === 404 && route.session !== undefined;
    if (ended && this.#sessionId === route.session) this.#sessionId = undefined;
    const authorized = Object.keys(this.#base).some((h) => h.toLowerCase() === 'authorization');
    return httpError(res, ended, authorized);
  }

  #callError(error: unknown): McpCallError {
    if (error instanceof McpCallError) return error;
    const code = (error as { code?: unknown })?.code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new McpCallError('timeout', `no answer within ${this.#timeoutMs} ms`, { cause: error });
    }
    return new McpCallError('network', (error as Error)?.message ?? String(error), { cause: error });
  }

  async #endReplaced(): Promise<void> {
    const batch = this.#replaced.splice(0);
    if (batch.length === 0) return;
    this.#side ??= new Client(this.#origin, { keepAliveTimeout: 60_000, pipelining: 1 });
    for (const headers of batch) await endSession(this.#side, this.#path, headers);
  }
}

/** `DELETE` of the session the headers name; best effort, never fatal. */
function endSession(http: Client, path: string, headers: Headers): Promise<void> {
  return http
    .request({ path, method: 'DELETE', headers, headersTimeout: 2_000, bodyTimeout: 2_000 })
    .then((res) => res.body.dump())
    .catch(() => {});
}

function flatten(headers: HeaderObject): Headers {
  return Object.entries(headers).flat();
}

function parseJson(text: string): RpcMessage {
  try {
    return JSON.parse(text) as RpcMessage;
  } catch (error) {
    throw new McpCallError('protocol', `the answer is not JSON, so not MCP: ${bodySummary(text)}`, { cause: error });
  }
}

/** `http_<status>`, keeping a JSON-RPC error code from the body (the `auto` probe looks at it). */
async function httpError(
  res: Dispatcher.ResponseData,
  sessionEnded: boolean,
  authorized: boolean,
): Promise<McpCallError> {
  const text = await res.body.text().catch(() => '');
  let rpc: unknown;
  try {
    rpc = (JSON.parse(text) as RpcMessage).error;
  } catch {
    // not JSON: told in a few words
  }
  return new McpCallError(`http_${res.statusCode}`, httpFailure(res.statusCode, text, authorized), {
    cause: { status: res.statusCode, error: rpc },
    sessionEnded,
  });
}

/**
 * The message answering `id` from an SSE body. Resolves as soon as it arrives; the rest of
 * the stream keeps draining in the background (not destroyed: that would drop the
 * keep-alive connection), since a server may send notifications before and close after.
 */
function readSse(body: Dispatcher.ResponseData['body'], id: number): Promise<RpcMessage> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let done = false;
    body.setEncoding('utf8');
    body.on('data', (chunk: string) => {
      if (done) return;
      buffer += chunk;
      let end = eventEnd(buffer, 0);
      let start = 0;
      while (end !== -1) {
        const msg = sseMessage(buffer.slice(start, end), id);
        if (msg !== undefined) {
          done = true;
          resolve(msg);
          return;
        }
        start = end + (buffer.charCodeAt(end) === 0x0d ? 4 : 2);
        end = eventEnd(buffer, start);
      }
      buffer = buffer.slice(start);
    });
    body.on('end', () => {
      if (done) return;
      // A last event without its blank line still counts.
      const msg = buffer.trim() === '' ? undefined : sseMessage(buffer, id);
      if (msg !== undefined) resolve(msg);
      else reject(new McpCallError('protocol', `SSE stream ended without a response to request ${id}`));
    });
    body.on('error', (error) => {
      if (!done) reject(error);
    });
  });
}

/** The message answering `id` in a whole SSE body. */
function sseAnswer(text: string, id: number): RpcMessage {
  let start = 0;
  for (let end = eventEnd(text, 0); end !== -1; end = eventEnd(text, start)) {
    const msg = sseMessage(text.slice(start, end), id);
    if (msg !== undefined) return msg;
    start = end + (text.charCodeAt(end) === 0x0d ? 4 : 2);
  }
  const rest = text.slice(start);
  const msg = rest.trim() === '' ? undefined : sseMessage(rest, id);
  if (msg === undefined) throw new McpCallError('protocol', `SSE answer without a response to request ${id}`);
  return msg;
}

/** Index of the blank line ending the event that starts at `from`, or -1. */
function eventEnd(text: string, from: number): number {
  const lf = text.indexOf('\n\n', from);
  const crlf = text.indexOf('\r\n\r\n', from);
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return crlf;
  return lf;
}

/** The JSON-RPC response in one SSE event if it answers `id`; notifications and pings are skipped. */
function sseMessage(event: string, id: number): RpcMessage | undefined {
  let data: string | undefined;
  for (const raw of event.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!line.startsWith('data:')) continue;
    const value = line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  if (data === undefined || data === '') return undefined;
  const msg = parseJson(data);
  return msg.id === id && (msg.result !== undefined || msg.error !== undefined) ? msg : undefined;
}
