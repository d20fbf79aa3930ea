import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { Call } from '@mcp-db-bench/engines';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import type { ToolOutcome } from '../server.js';

/** What the hot paths read of a request (Node's, or the front door's). */
export type Head = Pick<IncomingMessage, 'headers' | 'socket'>;

/** The tools as functions of their raw arguments, run as a call (see `directTools`). */
export type DirectTools = ReadonlyMap<string, (args: unknown, call: Call) => Promise<ToolOutcome>>;

/**
 * A hot-path call over HTTP: its client has gone when the connection closes before the answer is
 * written (a client that gives up, a server that shuts down). Listened to only while a statement runs.
 */
export class SocketCall extends Call {
  constructor(private readonly socket: Socket) {
    super();
  }
  get gone(): boolean {
    return this.socket.destroyed;
  }
  protected listen(onGone: () => void): void {
    this.socket.on('close', onGone);
  }
  protected unlisten(onGone: () => void): void {
    this.socket.off('close', onGone);
  }
}

/** Answers the SDK gave once, at start-up, to requests whose answer depends on nothing but the id. */
export interface Replies {
  /** modern revisions the SDK serves (from its `server/discover` answer) */
  versions: readonly string[];
  /** the SDK's `_meta` server identity, stamped on every result */
  serverInfo: unknown;
  /** method → the SDK's result for a request with no params besides the envelope */
  results: ReadonlyMap<string, unknown>;
}

/** Methods whose modern answer is the same for every well-formed request without params. */
export const REPLAYED_METHODS = ['server/discover', 'tools/list'] as const;

const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);

/**
 * The hot path of the modern era (MODERN_REVISION) without the SDK's per-request machinery (a
 * web Request, a fresh McpServer with every tool registered, an exchange transport, a web Response).
 *
 * It answers only the plainest well-formed requests: a single `tools/call` of a known tool, or
 * a param-less `tools/list` / `server/discover`, whose envelope (`_meta`) holds exactly the
 * protocol version, client info and capabilities, and whose `MCP-Protocol-Version`, `Mcp-Method`
 * and `Mcp-Name` headers equal the body's values. Anything else (another method, a cursor, a
 * progress token, a mismatch, a legacy request, a batch) returns undefined and goes to the SDK,
 * which stays the authority on the protocol: the fast answers are the SDK's own (replayed) or
 * built to its encoding (`resultType`, the server identity in `_meta`), and the tests compare
 * both paths answer for answer.
 *
 * Tool outputs are not re-validated against their output schemas here (the SDK does that for
 * every result): they are our own, built to those schemas, and the conformance tests check them.
 */
export function fastPath(
  tools: DirectTools,
  replies: Replies,
): (req: Head, body: unknown) => Promise<string> | undefined {
  const versions = new Set(replies.versions);
  const stamp = JSON.stringify({ [SERVER_INFO_META_KEY]: replies.serverInfo });
  const replayed = new Map([...replies.results].map(([method, result]) => [method, JSON.stringify(result)]));
  const envelopeVersion = envelopes();

  return (req, body) => {
    if (
      !isObject(body) ||
      body.jsonrpc !== '2.0' ||
      !isId(body.id) ||
      typeof body.method !== 'string' ||
      !isObject(body.params)
    )
      return undefined;
    if (Object.keys(body).length !== 4) return undefined;
    const { method, params, id } = body;
    const version = envelopeVersion(params._meta);
    if (version === undefined || !versions.has(version)) return undefined;
    const headers = req.headers;
    if (headers['mcp-protocol-version'] !== version || headers['mcp-method'] !== method) return undefined;

    const reply = replayed.get(method);
    if (reply !== undefined) {
      if (Object.keys(params).length !== 1 || headers['mcp-name'] !== undefined) return undefined;
      return Promise.resolve(`{"result":${reply},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`);
    }
    if (method !== 'tools/call') return undefined;
    const { name, arguments: args } = params;
    const call = typeof name === 'string' ? tools.get(name) : undefined;
    if (!call || headers['mcp-name'] !== name || !(args === undefined || isObject(args))) return undefined;
    if (Object.keys(params).length !== (args === undefined ? 2 : 3)) return undefined;
    const tail = `,"resultType":"complete","_meta":${stamp}`;
    return call(args, new SocketCall(req.socket)).then(
      (outcome) => `{"result":${toolResult(outcome, tail)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
    );
  };
}

/**
 * The SDK's encoding of a tool result (both eras; `tail` adds the modern era's fields), with the
 * result's JSON text reused as its structured content.
 */
export function toolResult(outcome: ToolOutcome, tail = ''): string {
  const content = `{"content":[{"type":"text","text":${JSON.stringify(outcome.text)}}]`;
  return outcome.isError
    ? `${content},"isError":true${tail}}`
    : `${content},"structuredContent":${outcome.text}${tail}}`;
}

/**
 * The claimed revision when `_meta` is exactly an envelope the SDK's own classifier accepts as
 * modern, else undefined. An agent sends the same envelope on every call, so verdicts are kept
 * (a bounded map keyed by the envelope's JSON).
 */
function envelopes(): (meta: unknown) => string | undefined {
  const verdicts = new Map<string, string | null>();
  return (meta) => {
    if (!isObject(meta)) return undefined;
    const keys = Object.keys(meta);
    if (keys.length !== ENVELOPE_KEYS.size || !keys.every((k) => ENVELOPE_KEYS.has(k))) return undefined;
    const version = meta[PROTOCOL_VERSION_META_KEY];
    if (typeof version !== 'string') return undefined;
    const key = JSON.stringify(meta);
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      const body = { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: meta } };
      const outcome = classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: version,
        mcpMethodHeader: 'tools/list',
        body,
      });
      verdict = outcome.kind === 'modern' ? version : null;
      if (verdicts.size >= 256) verdicts.clear();
      verdicts.set(key, verdict);
    }
    return verdict ?? undefined;
  };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}
