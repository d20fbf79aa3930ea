import { createHash, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServerFactory } from '@modelcontextprotocol/server';

export interface HttpOptions {
  host: string;
  port: number;
  /** bearer token every request must carry; required when binding beyond loopback */
  token?: string;
  /** extra Host / Origin hostnames to accept besides loopback and the bind address */
  allowedHosts?: string[];
  /** largest request body accepted, in bytes */
  maxBodyBytes?: number;
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
  const checkHost = hostHeaderValidation(hostnames);
  const checkOrigin = originValidation(hostnames);
  const maxRequestBodySize = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const onerror = (error: Error) => process.stderr.write(`mcp-db-server: http: ${error.message}\n`);
  // Both layers read the body, and each enforces its own bound.
  const mcp = toNodeHandler(createMcpHandler(factory, { maxRequestBodySize, onerror }), { maxRequestBodySize, onerror });
  const authorized = options.token ? bearerCheck(options.token) : () => true;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) return sendJson(res, 404, { error: `not found: the MCP endpoint is ${MCP_PATH}` });
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
    mcp(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: (error as Error).message });
      else res.destroy();
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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
