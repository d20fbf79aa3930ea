import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { inExchange } from '@mcp-db-bench/engines';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServerFactory } from '@modelcontextprotocol/server';
import { NO_TELEMETRY, type Telemetry } from '../telemetry/index.js';
import { accessCheck, assertSafeBind, writeAnswer } from './access.js';
import { Admission, isMcpPath, MCP_PATH } from './admission.js';
import { batchPath } from './batch.js';
import { replay } from './body.js';
import { autoBusyPollUs, BusyPoll, Headroom } from './busy-poll.js';
import type { DirectTools } from './fast-path.js';
import { type FrontAnswer, frontDoor, frontResponse } from './front.js';
import { hotPaths } from './hot-paths.js';
import {
  bodyIntake,
  DEFAULT_TRANSPORT_LIMITS,
  guardConnections,
  type Intake,
  refused,
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

export { MCP_PATH };
/** Readiness: the process serves and its database answers. */
export const HEALTH_PATH = '/healthz';
/** Liveness: the process serves (a database outage must not get it restarted). */
export const LIVE_PATH = '/livez';
/** The longest /healthz waits for the database before it answers 503. */
export const HEALTH_TIMEOUT_MS = 2_000;

/** What serves the MCP endpoint: Node's request handler and the front door share it. */
interface Endpoint {
  /** what becomes of each request: one set of rules for Node's server and the front door */
  admission: Admission;
  intake: Intake;
  batch: (req: IncomingMessage, res: ServerResponse, chunks: Buffer[]) => void;
  telemetry: Telemetry;
  /** hands a request to the SDK as it is */
  toSdk: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}

const onerror = (error: Error) => process.stderr.write(`mcp-db-server: http: ${error.message}\n`);

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
  // Both layers read the body, and each enforces its own bound.
  const handler = createMcpHandler(factory, { maxRequestBodySize, onerror });
  const toSdk = sdkHandler(toNodeHandler(handler, { maxRequestBodySize, onerror }));
  const hot = options.direct ? await hotPaths(handler, options.direct, onerror) : undefined;
  const sessions = options.sessions ?? new Sessions();
  const health = healthCheck(options.health, onerror);
  const limits: TransportLimits = { ...DEFAULT_TRANSPORT_LIMITS, ...options.limits };
  // a large body is parsed once the hot-path calls in progress are answered (OnePerTurn)
  const intake = bodyIntake(limits, maxRequestBodySize, () => admission.idle);
  const batch = batchPath(handler, { limits, budget: intake.budget, maxRequestBodySize, toSdk, onerror });
  const telemetry = options.telemetry ?? NO_TELEMETRY;
  telemetry.sessions(() => sessions.size);
  const admission = new Admission(access, sessions, maxRequestBodySize, hot, (method) => telemetry.method(method));
  const endpoint: Endpoint = { admission, intake, batch, telemetry, toSdk };

  const server = createServer(serverTimeouts(limits), inTurn(router(endpoint, health)));
  server.keepAliveTimeout = 65_000;
  // With telemetry each request is reported from Node's request and response: no front door.
  // Put first: it takes the connection listeners the server was created with (front.ts).
  if (!telemetry.enabled && hot)
    frontDoor(server, frontAnswer(admission, server), {
      headersTimeoutMs: limits.headersTimeoutMs,
      keepAliveMs: server.keepAliveTimeout,
      // auto polls only while the machine has a core to spare; a window given is polled as given
      busyPoll:
        options.busyPollUs === undefined
          ? new BusyPoll(autoBusyPollUs() / 1000, new Headroom())
          : new BusyPoll(options.busyPollUs / 1000),
    });
  guardConnections(server, limits);
  const url = await listen(server, options.host, options.port);
  server.once('close', () => {
    sessions.close();
    intake.close();
  });
  return { server, url, sessions };
}

/** Listens on `host`:`port` (0: a free one); resolves with the endpoint's URL. */
async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${(server.address() as AddressInfo).port}${MCP_PATH}`;
}

/** `mcp` as a request handler whose exchange ends when the client leaves before its answer is sent. */
function sdkHandler(
  mcp: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return (req, res) => {
    const left = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) left.abort();
    });
    return inExchange(left.signal, () => mcp(req, res)).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: (error as Error).message });
      else res.destroy();
    });
  };
}

/**
 * `serve`, answering a connection's requests one at a time, each once the answer before it has
 * gone to the kernel: HTTP/1.1 answers pipelined requests in order anyway, and a client that sends
 * many and reads none would otherwise have every answer made and held in memory (Node stops
 * reading a connection only once its answers back up).
 */
function inTurn(
  serve: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const answering = new WeakMap<Socket, Promise<void>>();
  return (req, res) => {
    const before = answering.get(req.socket);
    answering.set(req.socket, new Promise((resolve) => res.once('close', resolve)));
    if (before === undefined) return serve(req, res);
    before.then(() => {
      if (!req.socket.destroyed) serve(req, res);
    });
  };
}

/** The probes, then the MCP endpoint (reported to telemetry); anything else is not found (the admission's 404). */
function router(
  endpoint: Endpoint,
  health: () => Promise<string | undefined>,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { telemetry } = endpoint;
  return (req, res) => {
    if (refused(req)) return void req.socket.destroy();
    // Probes (a kubelet, a load balancer) come without a token and with a pod's IP as Host; the
    // answers are a status word and carry nothing of the database, so neither is checked.
    if (req.method === 'GET' && (req.url === LIVE_PATH || req.url === HEALTH_PATH)) {
      if (req.url === LIVE_PATH) return sendJson(res, 200, { status: 'ok' });
      return void health().then((down) =>
        sendJson(res, down ? 503 : 200, down ? { status: 'unavailable', reason: down } : { status: 'ok' }),
      );
    }
    // Anything but the endpoint is refused by the admission (404), unreported.
    if (!telemetry.enabled || !isMcpPath(req.url)) return serveMcp(endpoint, req, res);
    telemetry.request(req, res, () => serveMcp(endpoint, req, res));
  };
}

/** A request on the MCP endpoint, through Node's server: its head judged, then its body read and judged. */
function serveMcp(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse) {
  const verdict = endpoint.admission.head(req);
  if (verdict === 'sdk') return void endpoint.toSdk(req, res);
  if (verdict !== 'read') return writeAnswer(res, verdict);
  // Every body is read here, under the shared budget and the body timeout: the SDK would read it
  // too (whatever its type), with neither.
  // The body's events come from the socket, outside the request's telemetry context: bound to it.
  endpoint.intake.read(
    req,
    res,
    endpoint.telemetry.bind((chunks: Buffer[], complete: boolean) => serveBody(endpoint, req, res, chunks, complete)),
  );
}

/** A POST's body, read: answered, a hot path's call, a batch, or the SDK's to answer. */
function serveBody(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, chunks: Buffer[], complete: boolean) {
  const { admission } = endpoint;
  const verdict = admission.body(req, chunks, complete);
  if (verdict === 'sdk') return void endpoint.toSdk(replay(req, chunks), res);
  if (verdict === 'batch') return endpoint.batch(req, res, chunks);
  if (verdict instanceof Promise) return void verdict.then((reply) => writeAnswer(res, admission.replied(reply)));
  writeAnswer(res, verdict);
}

/**
 * The front door's answers: the admission's, written whole; undefined when the request is the
 * SDK's or the batch path's (Node's server then takes the connection, and judges it the same way).
 */
function frontAnswer(admission: Admission, server: Server): FrontAnswer {
  return (request) => {
    const verdict = admission.head(request);
    if (verdict === 'sdk') return;
    if (verdict !== 'read') return frontResponse(verdict, server.keepAliveTimeout);
    const answer = admission.body(request, [request.body], true);
    if (answer === 'sdk' || answer === 'batch') return;
    if (answer instanceof Promise)
      return answer.then((reply) => frontResponse(admission.replied(reply), server.keepAliveTimeout));
    return frontResponse(answer, server.keepAliveTimeout);
  };
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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
