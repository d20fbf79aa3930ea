import type { IncomingHttpHeaders } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/server';
import type { Access } from './access.js';
import { isBatch } from './batch.js';
import { MAX_JSON_DEPTH, nestsDeeper } from './body.js';
import type { Head } from './fast-path.js';
import { type HotCall, type Reply, replyHeaders } from './hot-paths.js';
import { rpcError } from './limits.js';
import type { Sessions } from './sessions.js';

/** A request's line and headers, as Node's server or the front door read them. */
export interface RequestHead {
  method?: string | undefined;
  url?: string | undefined;
  headers: IncomingHttpHeaders;
}

/** A whole answer the endpoint gives itself: a refusal, a session ended, a hot path's reply. */
export interface Answer {
  status: number;
  /** besides Content-Length, which whoever writes the answer adds */
  headers: Record<string, string>;
  body: string;
}

/**
 * What becomes of a request judged on its head: answered at once, its body read (`'read'`),
 * or handed to the SDK as it is (`'sdk'`: it refuses a declared size on the headers alone).
 */
export type HeadVerdict = Answer | 'read' | 'sdk';

/**
 * What becomes of a POST judged on its body: answered at once, a hot path's reply to come,
 * the batch path's (`'batch'`), or the SDK's (`'sdk'`: it reads the bytes again and judges them
 * as it would alone).
 */
export type BodyVerdict = Answer | Promise<Reply> | 'batch' | 'sdk';

export const MCP_PATH = '/mcp';

/**
 * The rules of the MCP endpoint, in one order, for both ways a request comes in: Node's HTTP
 * server (http.ts) and the front door that reads plain requests itself (front.ts). Whatever reads
 * a request asks these and writes what they answer; neither has a check of its own.
 *
 * On the head: the path, Host and Origin, the bearer token, DELETE (which ends a session),
 * the method, the session, the content encoding and the declared size. On the body: whether it
 * was read whole and is JSON, its nesting, whether it is a batch, and then the hot paths (whose
 * rules include the protocol version headers) or the SDK.
 */
export class Admission {
  /** hot-path calls answered later (a database's round trip), not yet answered */
  private pending = 0;
  private readonly settled = () => void this.pending--;

  constructor(
    private readonly access: Access,
    private readonly sessions: Sessions,
    private readonly maxBodyBytes: number,
    /** absent: the SDK answers every request that passes */
    private readonly hot: HotCall | undefined,
    /** told each parsed request's JSON-RPC method (telemetry) */
    private readonly onMethod: (method: unknown) => void = () => {},
  ) {}

  head(req: RequestHead): HeadVerdict {
    if (!isMcpPath(req.url)) return json(404, { error: `not found: the MCP endpoint is ${MCP_PATH}` });
    const refused = this.access.refusal(req);
    if (refused) return refused;
    // An unknown header arrives as one string (repeats joined), never an array.
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (req.method === 'DELETE') {
      if (sessionId === undefined) return json(400, rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
      if (!this.sessions.end(sessionId)) return SESSION_NOT_FOUND;
      return ENDED;
    }
    // POST carries MCP, DELETE ends a session; there is no server-to-client SSE stream (GET).
    // Refused before the SDK, which turns methods that fetch's Request cannot hold (TRACE) into a 500.
    if (req.method !== 'POST') return METHOD_NOT_ALLOWED;
    // A 2025-era session that ended or expired, or that this server never issued: the client must initialize again.
    if (sessionId !== undefined && !this.sessions.use(sessionId)) return SESSION_NOT_FOUND;
    // A compressed body would be read as if it were plain JSON.
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      const named = `Content-Encoding ${encoding.slice(0, 40)} is not supported`;
      return json(415, rpcError(-32000, `Unsupported Media Type: ${named}`));
    }
    // Declared too large: the SDK refuses it on the headers alone (413).
    if (Number(req.headers['content-length']) > this.maxBodyBytes) return 'sdk';
    return 'read';
  }

  /** A POST's body (`complete`: read whole, within the size limit), once its head was admitted. */
  body(req: RequestHead & Head, chunks: Buffer[], complete: boolean): BodyVerdict {
    // Too large, or not JSON: the SDK reads the bytes again and refuses them (413, 415).
    if (!complete || !isJsonContentType(req.headers['content-type'] ?? null)) return 'sdk';
    // joined once: the depth scan and the parse both take it whole
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    if (nestsDeeper([bytes], MAX_JSON_DEPTH))
      return json(400, rpcError(-32700, `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`));
    if (isBatch([bytes])) return 'batch';
    if (!this.hot) return 'sdk';
    let body: unknown;
    try {
      body = JSON.parse(bytes.toString('utf8'));
    } catch {
      return 'sdk';
    }
    this.onMethod((body as { method?: unknown } | null)?.method);
    // Declined: the SDK gets the bytes, not our parse, and judges them exactly as it would
    // alone (handed a parsed 100k-deep body, it answered 500).
    const verdict = this.hot(req, body) ?? 'sdk';
    if (verdict instanceof Promise) {
      this.pending++;
      verdict.then(this.settled, this.settled);
    }
    return verdict;
  }

  /** No hot-path call is waiting for its answer: a large body's parse would hold none back. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /** A hot path's reply as the answer to write (an `initialize` that opens a session names it). */
  replied(reply: Reply): Answer {
    return { status: reply.status, headers: replyHeaders(reply, this.sessions), body: reply.text };
  }
}

/** `url` names the endpoint, with or without a query. */
export function isMcpPath(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith(MCP_PATH)) return false;
  return url.length === MCP_PATH.length || url[MCP_PATH.length] === '?';
}

/** An answer whose body is `value` as JSON. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) };
}

const SESSION_NOT_FOUND = json(404, rpcError(-32001, 'Session not found'));
const METHOD_NOT_ALLOWED = json(405, rpcError(-32000, 'Method not allowed.'), { Allow: 'POST, DELETE' });
const ENDED: Answer = { status: 200, headers: {}, body: '' };
