import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isJsonContentType, type McpHttpHandler, type McpServerFactory } from '@modelcontextprotocol/server';
import { MAX_JSON_DEPTH, nestsDeeper, readBody, replay } from './body.js';
import { type DirectTools, fastPath, MODERN_REVISION, REPLAYED_METHODS, type Replies } from './fast-path.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** bearer token every request must carry; required when binding beyond loopback */
  token?: string;
  /** extra Host / Origin hostnames to accept besides loopback and the bind address */
  allowedHosts?: string[];
  /** largest request body accepted, in bytes */
  maxBodyBytes?: number;
  /** the tools as direct calls: enables the fast path for plain 2026-07-28 requests (see fast-path.ts) */
  direct?: DirectTools;
}

export const MCP_PATH = '/mcp';
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]', '::1'];

export function isLoopback(host: string): boolean {
  return LOOPBACK.includes(host) || host.startsWith('127.');
}

/**
 * Streamable HTTP on one endpoint for both protocol eras: 2026-07-28 requests are served
 * statelessly per request, 2025-era ones (initialize, then calls) by the SDK's stateless
 * legacy fallback. Host and Origin are always checked (DNS-rebinding protection).
 */
export async function startHttp(factory: McpServerFactory, options: HttpOptions): Promise<{ server: Server; url: string }> {
  assertSafeBind(options);
  const hostnames = [...new Set([...LOOPBACK, options.host, ...(options.allowedHosts ?? [])])];
  const checkHost = rememberPasses(hostHeaderValidation(hostnames), 'host');
  const checkOrigin = rememberPasses(originValidation(hostnames), 'origin');
  const maxRequestBodySize = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const onerror = (error: Error) => process.stderr.write(`mcp-db-server: http: ${error.message}\n`);
  // Both layers read the body, and each enforces its own bound.
  const handler = createMcpHandler(factory, { maxRequestBodySize, onerror });
  const mcp = toNodeHandler(handler, { maxRequestBodySize, onerror });
  const authorized = options.token ? bearerCheck(options.token) : () => true;
  const replies = options.direct ? await askOnce(handler) : undefined;
  const fast = options.direct && replies ? fastPath(options.direct, replies) : undefined;
  const toSdk = (req: IncomingMessage, res: ServerResponse) =>
    mcp(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: (error as Error).message });
      else res.destroy();
    });

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!isMcpPath(req.url)) return sendJson(res, 404, { error: `not found: the MCP endpoint is ${MCP_PATH}` });
    if (!checkHost(req, res) || !checkOrigin(req, res)) return;
    if (!authorized(req)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return sendJson(res, 401, { error: 'missing or wrong bearer token' });
    }
    // Only POST carries MCP here (no SSE stream, no sessions to delete). Refused before the SDK,
    // which turns methods that fetch's Request cannot hold (TRACE) into a 500.
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return sendJson(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
    }
    // A compressed body would be read as if it were plain JSON.
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      return sendJson(res, 415, { jsonrpc: '2.0', error: { code: -32000, message: `Unsupported Media Type: Content-Encoding ${encoding.slice(0, 40)} is not supported` }, id: null });
    }
    // Not JSON, or declared too large: the SDK refuses it on the headers alone (415, 413).
    if (!isJsonContentType(req.headers['content-type'] ?? null)) return void toSdk(req, res);
    if (Number(req.headers['content-length']) > maxRequestBodySize) return void toSdk(req, res);
    readBody(req, maxRequestBodySize, (chunks, complete) => {
      // Too large: the SDK reads the bytes again, sees it and answers 413.
      if (!complete) return void toSdk(replay(req, chunks), res);
      if (nestsDeeper(chunks, MAX_JSON_DEPTH)) {
        return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels` }, id: null });
      }
      if (!fast) return void toSdk(replay(req, chunks), res);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return void toSdk(replay(req, chunks), res);
      }
      const answer = fast(req, body);
      // Declined: the SDK gets the bytes, not our parse, and judges them exactly as it would
      // alone (handed a parsed 100k-deep body, it answered 500).
      if (!answer) return void toSdk(replay(req, chunks), res);
      answer.then(
        (json) => {
          const bytes = Buffer.from(json);
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length }).end(bytes);
        },
        (error: unknown) => {
          onerror(error as Error);
          const id = (body as { id?: unknown }).id ?? null;
          sendJson(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id });
        },
      );
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { server, url: `http://${shownHost}:${port}${MCP_PATH}` };
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
      headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': MODERN_REVISION, 'mcp-method': method },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method, params: { _meta } }),
    });
    const response = await handler.fetch(request);
    if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json')) return undefined;
    const { result } = (await response.json()) as { result?: { supportedVersions?: string[]; nextCursor?: string; _meta?: Record<string, unknown> } };
    if (!result || result.nextCursor !== undefined) return undefined;
    if (method === 'server/discover') versions = result.supportedVersions ?? [];
    serverInfo = result._meta?.['io.modelcontextprotocol/serverInfo'];
    results.set(method, result);
  }
  return versions.includes(MODERN_REVISION) && serverInfo ? { versions, serverInfo, results } : undefined;
}

/** Only loopback may go without a token: anything else is reachable by other machines. */
export function assertSafeBind(options: Pick<HttpOptions, 'host' | 'token'>): void {
  if (!isLoopback(options.host) && !options.token) {
    throw new Error(`refusing to listen on ${options.host} without --token: only loopback addresses may go unauthenticated`);
  }
}

/** Compares digests so neither the token's length nor its prefix leaks through timing. */
function bearerCheck(token: string): (req: IncomingMessage) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (req) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(createHash('sha256').update(given).digest(), expected);
  };
}

/** `url` names the endpoint, with or without a query. */
function isMcpPath(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith(MCP_PATH)) return false;
  return url.length === MCP_PATH.length || url[MCP_PATH.length] === '?';
}

/**
 * One of the SDK's header checks (it answers 403 itself), with the values that passed remembered:
 * a client sends the same Host and Origin on every request, and the check parses a URL each time.
 * Only passes are kept, and a bounded number; anything else is judged by the SDK again.
 */
function rememberPasses(check: (req: IncomingMessage, res: ServerResponse) => boolean, header: 'host' | 'origin') {
  const passed = new Set<string | undefined>();
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const value = req.headers[header];
    if (passed.has(value)) return true;
    if (!check(req, res)) return false;
    if (passed.size < 64) passed.add(value);
    return true;
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
