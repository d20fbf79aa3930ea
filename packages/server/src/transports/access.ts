import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/node';
import { validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';

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
  /** Whether a request with these headers passes, answering nothing (the server's front door hands refusals on). */
  passes(req: Head): boolean;
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

/**
 * The checks the MCP server makes of every request on its endpoint, for any listener that serves
 * what it serves (the server itself, a proxy in front of it): Host and Origin must name loopback,
 * the address listened on or an allowed host (the SDK's validators judge, and answer 403), and
 * with a token the request must carry it (else 401).
 */
export function accessCheck(options: AccessOptions): Access {
  const hostnames = [...new Set([...LOOPBACK, options.host, ...(options.allowedHosts ?? [])])];
  const checkHost = rememberPasses(
    hostHeaderValidation(hostnames),
    (host) => validateHostHeader(host, hostnames),
    'host',
  );
  const checkOrigin = rememberPasses(
    originValidation(hostnames),
    (origin) => validateOriginHeader(origin, hostnames),
    'origin',
  );
  const authorized: (req: Head) => boolean = options.token ? bearerCheck(options.token) : () => true;
  return {
    admits(req, res) {
      if (!checkHost(req, res) || !checkOrigin(req, res)) return false;
      if (authorized(req)) return true;
      res.setHeader('WWW-Authenticate', 'Bearer');
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"missing or wrong bearer token"}');
      return false;
    },
    passes: (req) => checkHost.passes(req.headers.host) && checkOrigin.passes(req.headers.origin) && authorized(req),
  };
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
 * One of the SDK's header checks (it answers 403 itself), with the values that passed remembered:
 * a client sends the same Host and Origin on every request, and the check parses a URL each time.
 * Only passes are kept, and a bounded number; anything else is judged by the SDK again.
 */
function rememberPasses(
  check: (req: IncomingMessage, res: ServerResponse) => boolean,
  validate: (value: string | undefined) => { ok: boolean },
  header: 'host' | 'origin',
) {
  const passed = new Set<string | undefined>();
  const remember = (value: string | undefined) => {
    if (passed.size < 64) passed.add(value);
    return true;
  };
  const judge = (req: IncomingMessage, res: ServerResponse): boolean => {
    const value = req.headers[header];
    return passed.has(value) || (check(req, res) && remember(value));
  };
  /** Whether `value` passes, judged by the SDK's validator behind the check. */
  const passes = (value: string | undefined) => passed.has(value) || (validate(value).ok && remember(value));
  return Object.assign(judge, { passes });
}
