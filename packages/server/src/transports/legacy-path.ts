import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, isInitializeRequest } from '@modelcontextprotocol/server';
import { type DirectTools, type Head, isId, isObject, SocketCall, toolResult } from './fast-path.js';

/** Answers the SDK gave once, at start-up, for the 2025 era (see `askLegacy` in hot-paths.ts). */
export interface LegacyReplies {
  /** requested revision → the SDK's `initialize` result; `fallback` for a revision it does not serve */
  initialize: ReadonlyMap<string, unknown>;
  fallback: unknown;
  /** revision → the SDK's `tools/list` result */
  toolsList: ReadonlyMap<string, unknown>;
}

/** What the 2025-era hot path answers: an SSE-framed JSON-RPC response, or 202 for a notification. */
export type LegacyAnswer = { status: 200; message: string; opensSession: boolean } | { status: 202 };

/**
 * The hot path of the 2025 era (`initialize`, then calls, as every host speaks today) without
 * the SDK's stateless fallback, which builds a web Request, a McpServer with every tool, a
 * transport and a web Response per request.
 *
 * It answers the shapes hosts send: `initialize` (any valid request, judged by the SDK's own
 * schema), `notifications/initialized`, `ping`, a param-less `tools/list`, and `tools/call` of
 * a known tool whose `_meta` is at most a progress token (we never report progress). The
 * request must accept both JSON and SSE and name a served revision (or none), as the SDK
 * requires; anything else returns undefined and goes to the SDK. Answers are framed as the
 * SDK frames them (one SSE `message` event); `initialize` and `tools/list` are the SDK's own
 * answers, replayed.
 */
export function legacyPath(
  tools: DirectTools,
  replies: LegacyReplies,
): (req: Head, body: unknown) => Promise<LegacyAnswer> | undefined {
  const initialize = new Map([...replies.initialize].map(([version, result]) => [version, JSON.stringify(result)]));
  const fallback = JSON.stringify(replies.fallback);
  const toolsList = new Map([...replies.toolsList].map(([version, result]) => [version, JSON.stringify(result)]));

  return (req, body) => {
    const accept = req.headers.accept;
    if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream'))
      return undefined;
    const version = req.headers['mcp-protocol-version'] ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
    if (typeof version !== 'string' || !toolsList.has(version)) return undefined;
    if (!isObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') return undefined;
    const { method, params, id } = body;
    const keys = Object.keys(body).length;

    if (method === 'notifications/initialized') {
      if (keys !== 2 && !(keys === 3 && isObject(params) && onlyMeta(params))) return undefined;
      return Promise.resolve({ status: 202 });
    }
    if (!isId(id) || keys !== (params === undefined ? 3 : 4)) return undefined;
    if (method === 'initialize') {
      if (!isInitializeRequest(body)) return undefined;
      const result = initialize.get((params as { protocolVersion: string }).protocolVersion) ?? fallback;
      return Promise.resolve({ status: 200, message: respond(result, id), opensSession: true });
    }
    if (method === 'ping' || method === 'tools/list') {
      if (params !== undefined && !(isObject(params) && onlyMeta(params))) return undefined;
      const result = method === 'ping' ? '{}' : toolsList.get(version)!;
      return Promise.resolve({ status: 200, message: respond(result, id), opensSession: false });
    }
    if (method !== 'tools/call' || !isObject(params)) return undefined;
    const { name, arguments: args, _meta: meta } = params;
    const call = typeof name === 'string' ? tools.get(name) : undefined;
    if (!call || !(args === undefined || isObject(args)) || !(meta === undefined || plainMeta(meta))) return undefined;
    if (Object.keys(params).length !== 1 + Number(args !== undefined) + Number(meta !== undefined)) return undefined;
    return call(args, new SocketCall(req.socket)).then((outcome) => ({
      status: 200,
      message: respond(toolResult(outcome), id),
      opensSession: false,
    }));
  };
}

/** `params` holds nothing, or only a plain `_meta`. */
function onlyMeta(params: Record<string, unknown>): boolean {
  const keys = Object.keys(params);
  return keys.length === 0 || (keys.length === 1 && keys[0] === '_meta' && plainMeta(params._meta));
}

/** A `_meta` that is empty or carries only a progress token. */
function plainMeta(meta: unknown): boolean {
  if (!isObject(meta)) return false;
  const keys = Object.keys(meta);
  return (
    keys.length === 0 ||
    (keys.length === 1 && (typeof meta.progressToken === 'string' || Number.isSafeInteger(meta.progressToken)))
  );
}

/** A JSON-RPC response in the SDK's key order, as one SSE `message` event. */
function respond(result: string, id: string | number): string {
  return `event: message\ndata: {"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n\n`;
}
