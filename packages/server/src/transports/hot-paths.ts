import { MODERN_REVISION } from '@mcp-db-bench/contract';
import { type McpHttpHandler, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { type DirectTools, fastPath, type Head, REPLAYED_METHODS, type Replies } from './fast-path.js';
import { type LegacyReplies, legacyPath } from './legacy-path.js';
import { rpcError } from './limits.js';
import type { Sessions } from './sessions.js';

/** A hot path's answer: SSE (2025 era, `initialize` opening a session) or a content type, and its text. */
export interface Reply {
  status: 200 | 202 | 500;
  type?: 'application/json' | 'sse';
  text: string;
  opensSession?: boolean;
}

/** The hot paths' answer to a parsed body, or undefined when neither takes it. */
export type HotCall = (head: Head, body: unknown) => Promise<Reply> | undefined;

const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/**
 * The hot paths of both eras (fast-path.ts, legacy-path.ts) over `direct`, primed with the
 * SDK's own answers; undefined when the SDK gave neither its replayable answers (the SDK then
 * answers everything).
 */
export async function hotPaths(
  handler: McpHttpHandler,
  direct: DirectTools,
  onerror: (error: Error) => void,
): Promise<HotCall | undefined> {
  const replies = await askOnce(handler);
  const fast = replies ? fastPath(direct, replies) : undefined;
  const legacyReplies = await askLegacy(handler);
  const legacy = legacyReplies ? legacyPath(direct, legacyReplies) : undefined;
  if (!fast && !legacy) return undefined;
  return (head, body) => {
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
}

/** A reply's headers: an `initialize` that opens a session names it. */
export function replyHeaders(reply: Reply, sessions: Sessions): Record<string, string> {
  if (reply.type === 'sse')
    return reply.opensSession ? { ...SSE_HEADERS, 'mcp-session-id': sessions.open() } : SSE_HEADERS;
  return reply.type ? { 'content-type': reply.type } : {};
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
