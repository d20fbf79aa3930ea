import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MODERN_REVISION } from '@mcp-db-bench/contract';
import { inExchange } from '@mcp-db-bench/engines';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isJsonContentType,
  type McpHttpHandler,
  type McpServerFactory,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { NO_TELEMETRY, type Telemetry } from '../telemetry/index.js';
import { accessCheck, assertSafeBind } from './access.js';
import { batchPath, isBatch } from './batch.js';
import { MAX_JSON_DEPTH, nestsDeeper, replay } from './body.js';
import { autoBusyPollUs, BusyPoll } from './busy-poll.js';
import { type DirectTools, fastPath, type Head, REPLAYED_METHODS, type Replies } from './fast-path.js';
import { type FrontRequest, frontDoor, frontResponse } from './front.js';
import { type LegacyReplies, legacyPath } from './legacy-path.js';
import {
  bodyIntake,
  DEFAULT_TRANSPORT_LIMITS,
  guardConnections,
  refused,
  rpcError,
  serverTimeouts,
  type TransportLimits,
} from './limits.js';
import { Sessions } from './sessions.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** bearer token every request must carry; required when binding beyond loopback */
  token?: string;
  /** extra Host / Origin hostnames to accept besides loopback and the bind address */
  allowedHosts?: string[];
  /** largest request body accepted, in bytes */
  maxBodyBytes?: number;
  /** the tools as direct calls: enables the hot paths for plain requests of both eras (fast-path.ts, legacy-path.ts) */
  direct?: DirectTools;
  /** the 2025-era session table (default: one of this process, with the default limits) */
  sessions?: Sessions;
  /** checks the database for GET /healthz: resolves when it answers (absent: /healthz answers like /livez) */
  health?: () => Promise<void>;
  /** what clients may hold: connections, body bytes and time, batches (limits.ts; defaults for those not given) */
  limits?: Partial<TransportLimits>;
  /** where requests on the MCP endpoint are reported (absent: nowhere) */
  telemetry?: Telemetry;
  /** how long, in µs, the loop keeps turning after answering a lone client that comes straight back (busy-poll.ts; 0: never; absent: autoBusyPollUs) */
  busyPollUs?: number;
}

export const MCP_PATH = '/mcp';
/** Readiness: the process serves and its database answers. */
export const HEALTH_PATH = '/healthz';
/** Liveness: the process serves (a database outage must not get it restarted). */
export const LIVE_PATH = '/livez';
/** The longest /healthz waits for the database before it answers 503. */
export const HEALTH_TIMEOUT_MS = 2_000;

/** A hot path's answer: SSE (2025 era, `initialize` opening a session) or a content type, and its text. */
interface Reply {
  status: 200 | 202 | 500;
  type?: 'application/json' | 'sse';
  text: string;
  opensSession?: boolean;
}

const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * Streamable HTTP on one endpoint for both protocol eras: modern (MODERN_REVISION) requests are
 * served statelessly per request; 2025-era clients get an `Mcp-Session-Id` at `initialize` (see
 * sessions.ts), which later requests must name while it lives, and `DELETE` ends. The plain
 * requests of both eras take a hot path; the SDK answers everything else (its stateless
 * legacy fallback for the 2025 era). Host and Origin are always checked (DNS-rebinding
 * protection).
 */
export async function startHttp(
  factory: McpServerFactory,
  options: HttpOptions,
): Promise<{ server: Server; url: string; sessions: Sessions }> {
  assertSafeBind(options);
  const access = accessCheck(options);
  const maxRequestBodySize = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const onerror = (error: Error) => process.stderr.write(`mcp-db-server: http: ${error.message}\n`);
  // Both layers read the body, and each enforces its own bound.
  const handler = createMcpHandler(factory, { maxRequestBodySize, onerror });
  const mcp = toNodeHandler(handler, { maxRequestBodySize, onerror });
  const replies = options.direct ? await askOnce(handler) : undefined;
  const fast = options.direct && replies ? fastPath(options.direct, replies) : undefined;
  const legacyReplies = options.direct ? await askLegacy(handler) : undefined;
  const legacy = options.direct && legacyReplies ? legacyPath(options.direct, legacyReplies) : undefined;
  const sessions = options.sessions ?? new Sessions();
  /** The hot paths' answer to a parsed body, or undefined when neither takes it. */
  const hotCall = (head: Head, body: unknown): Promise<Reply> | undefined => {
    const failed = (error: unknown): Reply => {
      onerror(error as Error);
      const id = (body as { id?: unknown }).id ?? null;
      return { status: 500, type: 'application/json', text: JSON.stringify(rpcError(-32603, 'Internal error', id)) };
    };
    const modern = fast?.(head, body);
    if (modern) return modern.then((json) => ({ status: 200, type: 'application/json', text: json }), failed);
    return legacy?.(head, body)?.then(
      (answer) =>
        answer.status === 202
          ? { status: 202, text: '' }
          : { status: 200, type: 'sse', text: answer.message, opensSession: answer.opensSession },
      failed,
    );
  };
  const replyHeaders = (reply: Reply): Record<string, string> => {
    if (reply.type === 'sse')
      return reply.opensSession ? { ...SSE_HEADERS, 'mcp-session-id': sessions.open() } : SSE_HEADERS;
    return reply.type ? { 'content-type': reply.type } : {};
  };
  const toSdk = (req: IncomingMessage, res: ServerResponse) => {
    // Aborted when the client leaves before its answer is sent: the SDK's calls end with it.
    const left = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) left.abort();
    });
    return inExchange(left.signal, () => mcp(req, res)).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: (error as Error).message });
      else res.destroy();
    });
  };

  const health = healthCheck(options.health, onerror);
  const limits: TransportLimits = { ...DEFAULT_TRANSPORT_LIMITS, ...options.limits };
  const intake = bodyIntake(limits, maxRequestBodySize);
  const batch = batchPath(handler, { limits, budget: intake.budget, maxRequestBodySize, toSdk, onerror });
  const telemetry = options.telemetry ?? NO_TELEMETRY;
  telemetry.sessions(() => sessions.size);

  // A connection's requests are answered one at a time, each once the answer before it has gone
  // to the kernel: HTTP/1.1 answers pipelined requests in order anyway, and a client that sends
  // many and reads none would otherwise have every answer made and held in memory (Node stops
  // reading a connection only once its answers back up).
  const answering = new WeakMap<Socket, Promise<void>>();
  const server = createServer(serverTimeouts(limits), (req: IncomingMessage, res: ServerResponse) => {
    const before = answering.get(req.socket);
    answering.set(req.socket, new Promise((resolve) => res.once('close', resolve)));
    if (before === undefined) return route(req, res);
    before.then(() => {
      if (!req.socket.destroyed) route(req, res);
    });
  });

  const route = (req: IncomingMessage, res: ServerResponse) => {
    if (refused(req)) return void req.socket.destroy();
    // Probes (a kubelet, a load balancer) come without a token and with a pod's IP as Host; the
    // answers are a status word and carry nothing of the database, so neither is checked.
    if (req.method === 'GET' && (req.url === LIVE_PATH || req.url === HEALTH_PATH)) {
      if (req.url === LIVE_PATH) return sendJson(res, 200, { status: 'ok' });
      return void health().then((down) =>
        sendJson(res, down ? 503 : 200, down ? { status: 'unavailable', reason: down } : { status: 'ok' }),
      );
    }
    if (!isMcpPath(req.url)) return sendJson(res, 404, { error: `not found: the MCP endpoint is ${MCP_PATH}` });
    if (!telemetry.enabled) return serveMcp(req, res);
    telemetry.request(req, res, () => serveMcp(req, res));
  };

  const serveMcp = (req: IncomingMessage, res: ServerResponse) => {
    if (!access.admits(req, res)) return;
    // An unknown header arrives as one string (repeats joined), never an array.
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (req.method === 'DELETE') {
      if (sessionId === undefined)
        return sendJson(res, 400, rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
      if (!sessions.end(sessionId)) return sendJson(res, 404, rpcError(-32001, 'Session not found'));
      return void res.writeHead(200, { 'content-length': 0 }).end();
    }
    // POST carries MCP, DELETE ends a session; there is no server-to-client SSE stream (GET).
    // Refused before the SDK, which turns methods that fetch's Request cannot hold (TRACE) into a 500.
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST, DELETE');
      return sendJson(res, 405, rpcError(-32000, 'Method not allowed.'));
    }
    // A 2025-era session that ended or expired, or that this server never issued: the client must initialize again.
    if (sessionId !== undefined && !sessions.use(sessionId))
      return sendJson(res, 404, rpcError(-32001, 'Session not found'));
    // A compressed body would be read as if it were plain JSON.
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      return sendJson(
        res,
        415,
        rpcError(-32000, `Unsupported Media Type: Content-Encoding ${encoding.slice(0, 40)} is not supported`),
      );
    }
    // Declared too large: the SDK refuses it on the headers alone (413).
    if (Number(req.headers['content-length']) > maxRequestBodySize) return void toSdk(req, res);
    // Every other body is read here, under the shared budget and the body timeout: the SDK
    // would read it too (whatever its type), with neither.
    // The body's events come from the socket, outside the request's telemetry context: bound to it.
    intake.read(
      req,
      res,
      telemetry.bind((chunks: Buffer[], complete: boolean) => {
        // Too large, or not JSON: the SDK reads the bytes again and refuses them (413, 415).
        if (!complete || !isJsonContentType(req.headers['content-type'] ?? null))
          return void toSdk(replay(req, chunks), res);
        if (nestsDeeper(chunks, MAX_JSON_DEPTH)) {
          return sendJson(res, 400, rpcError(-32700, `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`));
        }
        if (isBatch(chunks)) return batch(req, res, chunks);
        if (!fast && !legacy) return void toSdk(replay(req, chunks), res);
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return void toSdk(replay(req, chunks), res);
        }
        telemetry.method((body as { method?: unknown } | null)?.method);
        const hot = hotCall(req, body);
        if (hot) {
          return void hot.then((reply) => {
            const bytes = Buffer.from(reply.text);
            res.writeHead(reply.status, { ...replyHeaders(reply), 'content-length': bytes.length }).end(bytes);
          });
        }
        // Declined: the SDK gets the bytes, not our parse, and judges them exactly as it would
        // alone (handed a parsed 100k-deep body, it answered 500).
        toSdk(replay(req, chunks), res);
      }),
    );
  };
  server.keepAliveTimeout = 65_000;
  guardConnections(server, limits);

  /** A plain hot-path request read by the front door, answered whole; undefined: Node's server answers it. */
  const front = (request: FrontRequest): Promise<string> | string | undefined => {
    const { headers } = request;
    if (!isMcpPath(request.url) || !access.passes(request)) return;
    const sessionId = headers['mcp-session-id'] as string | undefined;
    if (request.method === 'DELETE') {
      if (sessionId === undefined || !sessions.end(sessionId)) return;
      return frontResponse(200, {}, '', server.keepAliveTimeout);
    }
    if (sessionId !== undefined && !sessions.use(sessionId)) return;
    const encoding = headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return;
    if (request.body.length > maxRequestBodySize || !isJsonContentType(headers['content-type'] ?? null)) return;
    const chunks = [request.body];
    if (nestsDeeper(chunks, MAX_JSON_DEPTH) || isBatch(chunks)) return;
    let body: unknown;
    try {
      body = JSON.parse(request.body.toString('utf8'));
    } catch {
      return;
    }
    return hotCall(request, body)?.then((reply) =>
      frontResponse(reply.status, replyHeaders(reply), reply.text, server.keepAliveTimeout),
    );
  };
  // With telemetry each request is reported from Node's request and response: no front door.
  if (!telemetry.enabled && (fast || legacy))
    frontDoor(server, front, {
      headersTimeoutMs: limits.headersTimeoutMs,
      keepAliveMs: server.keepAliveTimeout,
      busyPoll: new BusyPoll((options.busyPollUs ?? autoBusyPollUs()) / 1000),
    });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.once('close', () => {
    sessions.close();
    intake.close();
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { server, url: `http://${shownHost}:${port}${MCP_PATH}`, sessions };
}

/**
 * The /healthz check: undefined when the database answered within HEALTH_TIMEOUT_MS, else a
 * reason that names no host, user or driver message (those go to the log, once per outage).
 * Probes arriving together share one check.
 */
function healthCheck(
  check: (() => Promise<void>) | undefined,
  onerror: (error: Error) => void,
): () => Promise<string | undefined> {
  let pending: Promise<string | undefined> | undefined;
  let wasDown = false;
  const run = async (): Promise<string | undefined> => {
    if (!check) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the database did not answer within ${HEALTH_TIMEOUT_MS} ms`)),
        HEALTH_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([check(), timeout]);
      if (wasDown) onerror(new Error('healthz: the database answers again'));
      wasDown = false;
      return undefined;
    } catch (error) {
      if (!wasDown) onerror(new Error(`healthz: the database check failed: ${(error as Error).message}`));
      wasDown = true;
      return (error as Error).message.startsWith('the database did not answer')
        ? (error as Error).message
        : 'the database check failed';
    } finally {
      clearTimeout(timer);
    }
  };
  return () => {
    pending ??= run().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

/**
 * Asks the SDK, once, its 2025-era answers that depend only on the revision: `initialize` for
 * each revision it serves (and for one it does not, which it answers with its latest), and
 * `tools/list`. Undefined when an answer is not the plain SSE event the hot path replays.
 */
async function askLegacy(handler: McpHttpHandler): Promise<LegacyReplies | undefined> {
  const ask = async (method: string, params: unknown, version?: string) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (version) headers['mcp-protocol-version'] = version;
    const response = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method, params }),
      }),
    );
    const text = await response.text();
    const data = /^event: message\ndata: (.*)\n\n$/s.exec(text)?.[1];
    return response.status === 200 && data ? (JSON.parse(data) as { result?: unknown }).result : undefined;
  };
  const init = (protocolVersion: string) =>
    ask('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'mcp-db-server', version: '0' } });
  const initialize = new Map<string, unknown>();
  const toolsList = new Map<string, unknown>();
  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    const [initResult, listResult] = [await init(version), await ask('tools/list', {}, version)];
    if (
      initResult === undefined ||
      listResult === undefined ||
      (listResult as { nextCursor?: unknown }).nextCursor !== undefined
    )
      return undefined;
    initialize.set(version, initResult);
    toolsList.set(version, listResult);
  }
  const fallback = await init('0000-00-00');
  return fallback === undefined ? undefined : { initialize, fallback, toolsList };
}

/**
 * Asks the SDK, once, the questions whose modern answers do not depend on the request (discovery
 * and the tool list), so the fast path can replay them. Undefined when the SDK does not serve
 * the revision we ask in (the fast path then stays off and the SDK answers everything).
 */
async function askOnce(handler: McpHttpHandler): Promise<Replies | undefined> {
  const results = new Map<string, unknown>();
  let serverInfo: unknown;
  let versions: string[] = [];
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
    'io.modelcontextprotocol/clientInfo': { name: 'mcp-db-server', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  for (const method of REPLAYED_METHODS) {
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': MODERN_REVISION,
        'mcp-method': method,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method, params: { _meta } }),
    });
    const response = await handler.fetch(request);
    if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json'))
      return undefined;
    const { result } = (await response.json()) as {
      result?: { supportedVersions?: string[]; nextCursor?: string; _meta?: Record<string, unknown> };
    };
    if (!result || result.nextCursor !== undefined) return undefined;
    if (method === 'server/discover') versions = result.supportedVersions ?? [];
    serverInfo = result._meta?.['io.modelcontextprotocol/serverInfo'];
    results.set(method, result);
  }
  return versions.includes(MODERN_REVISION) && serverInfo ? { versions, serverInfo, results } : undefined;
}

/** `url` names the endpoint, with or without a query. */
function isMcpPath(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith(MCP_PATH)) return false;
  return url.length === MCP_PATH.length || url[MCP_PATH.length] === '?';
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
