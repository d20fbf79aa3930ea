import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { type Answer, json } from './admission.js';
import { rpcError } from './limits.js';

/** Who may send requests to an HTTP listener, and where it listens. */
export interface AccessOptions {
  /** the address listened on: its name is accepted in Host and Origin, besides loopback */
  host: string;
  /** bearer token every request must carry; required when listening beyond loopback */
  token?: string;
  /** extra Host / Origin hostnames to accept */
  allowedHosts?: string[];
}

/** The headers a check reads (a Node request, or the front door's). */
type Head = Pick<IncomingMessage, 'headers'>;

/** The front door of an HTTP listener: Host, Origin (DNS-rebinding protection) and the bearer token, in that order. */
export interface Access {
  /** Whether the request passes; when not, its refusal (403 or 401) has been answered. */
  admits(req: IncomingMessage, res: ServerResponse): boolean;
  /** The refusal a request with these headers gets (403 or 401), or undefined when it passes. */
  refusal(req: Head): Answer | undefined;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]', '::1'];

function isLoopback(host: string): boolean {
  return LOOPBACK.includes(host) || host.startsWith('127.');
}

/** Only loopback may go without a token: anything else is reachable by other machines. */
export function assertSafeBind(options: Pick<AccessOptions, 'host' | 'token'>): void {
  if (!isLoopback(options.host) && !options.token) {
    throw new Error(
      `refusing to listen on ${options.host} without --token: only loopback addresses may go unauthenticated`,
    );
  }
}

const UNAUTHORIZED = json(401, { error: 'missing or wrong bearer token' }, { 'WWW-Authenticate': 'Bearer' });

/**
 * The checks the MCP server makes of every request on its endpoint, for any listener that serves
 * what it serves (the server itself, a proxy in front of it): Host and Origin must name loopback,
 * the address listened on or an allowed host (the SDK's validators judge; 403 with their
 * message, as the SDK's own guards answer), and with a token the request must carry it (else 401).
 */
export function accessCheck(options: AccessOptions): Access {
  const hostnames = [...new Set([...LOOPBACK, options.host, ...(options.allowedHosts ?? [])])];
  const host = rememberPasses((value) => validateHostHeader(value, hostnames));
  const origin = rememberPasses((value) => validateOriginHeader(value, hostnames));
  const authorized: (req: Head) => boolean = options.token ? bearerCheck(options.token) : () => true;
  const refusal = (req: Head): Answer | undefined => {
    const wrong = host(req.headers.host) ?? origin(req.headers.origin);
    if (wrong !== undefined) return json(403, rpcError(-32000, wrong));
    return authorized(req) ? undefined : UNAUTHORIZED;
  };
  return {
    admits(req, res) {
      const refused = refusal(req);
      if (refused) writeAnswer(res, refused);
      return refused === undefined;
    },
    refusal,
  };
}

/** Writes a whole answer on Node's response, with its Content-Length. */
export function writeAnswer(res: ServerResponse, answer: Answer): void {
  res
    .writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) })
    .end(answer.body);
}

/** Compares digests so neither the token's length nor its prefix leaks through timing. */
function bearerCheck(token: string): (req: Head) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (req) => {
    const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(createHash('sha256').update(given).digest(), expected);
  };
}

/**
 * One of the SDK's header validators, as the message of its refusal (undefined: the value
 * passes), with the values that passed remembered: a client sends the same Host and Origin on
 * every request, and the validator parses a URL each time. Only passes are kept, and a bounded
 * number; anything else is judged again.
 */
function rememberPasses(
  validate: (value: string | undefined) => { ok: true } | { ok: false; message: string },
): (value: string | undefined) => string | undefined {
  const passed = new Set<string | undefined>();
  return (value) => {
    if (passed.has(value)) return undefined;
    const verdict = validate(value);
    if (!verdict.ok) return verdict.message;
    if (passed.size < 64) passed.add(value);
    return undefined;
  };
}
