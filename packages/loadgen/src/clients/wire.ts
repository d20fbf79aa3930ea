import { INITIALIZE_REVISIONS, LEGACY_REVISION, MODERN_REVISION } from '@mcp-db-bench/contract';
import { McpCallError, type ToolCallResult, type ToolInfo } from './client.js';

/**
 * The wire of our clients' session (session.ts) and its transports: protocol constants, the
 * `_meta` envelope, and turning JSON-RPC results into the `McpClient` shapes (the SDK client's too).
 */

export { LEGACY_REVISION, MODERN_REVISION };

const LEGACY_VERSIONS: ReadonlySet<string> = new Set(INITIALIZE_REVISIONS);

export interface ClientInfo {
  name: string;
  version: string;
}

export const DEFAULT_CLIENT_INFO: ClientInfo = { name: 'mcp-db-bench', version: '0.1.0' };
export const DEFAULT_TIMEOUT_MS = 30_000;

/** A JSON-RPC response as it comes off the wire (only the parts we read). */
export interface RpcMessage {
  id?: unknown;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/**
 * `,"_meta":{...}` for the modern era, stringified once: every request carries the same
 * envelope, so it is appended as text rather than re-serialized per call.
 */
export function modernMetaFragment(clientInfo: ClientInfo): string {
  return `"_meta":${JSON.stringify(modernMeta(clientInfo))}`;
}

/** The modern era's `_meta` envelope itself. */
export function modernMeta(clientInfo: ClientInfo): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
    'io.modelcontextprotocol/clientInfo': clientInfo,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

/** The `initialize` params of the 2025-era handshake. */
export function initializeParams(clientInfo: ClientInfo): string {
  return JSON.stringify({ protocolVersion: LEGACY_REVISION, capabilities: {}, clientInfo });
}

/** The result of a response, or the `jsonrpc_<code>` error it carries. */
export function resultOf(msg: RpcMessage): Record<string, unknown> {
  if (msg.error !== undefined) throw rpcError(msg.error);
  if (msg.result === undefined || msg.result === null || typeof msg.result !== 'object') {
    throw new McpCallError('protocol', 'JSON-RPC response with neither result nor error');
  }
  return msg.result;
}

export function rpcError(error: NonNullable<RpcMessage['error']>): McpCallError {
  const code = typeof error.code === 'number' ? error.code : 'unknown';
  return new McpCallError(`jsonrpc_${code}`, typeof error.message === 'string' ? error.message : 'JSON-RPC error', {
    cause: error,
  });
}

/** True when a `server/discover` result offers the revision we speak. */
export function discoverOffersModern(result: Record<string, unknown>): boolean {
  const supported = result.supportedVersions;
  return Array.isArray(supported) && supported.includes(MODERN_REVISION);
}

/** The negotiated 2025-era revision from an `initialize` result. */
export function legacyVersionOf(result: Record<string, unknown>): string {
  const version = result.protocolVersion;
  if (typeof version !== 'string' || !LEGACY_VERSIONS.has(version)) {
    throw new McpCallError(
      'protocol',
      `server answered initialize with unsupported protocol version ${String(version)}`,
    );
  }
  return version;
}

/**
 * Whether an `auto` probe's failure means "this server does not speak MODERN_REVISION" (fall back
 * to initialize) rather than a real failure. Mirrors the SDK's probe classifier: any JSON-RPC
 * error and any 4xx but 401/403 is a legacy signal; auth walls, 5xx, network and timeouts are not.
 */
export function isLegacySignal(error: unknown): boolean {
  if (!(error instanceof McpCallError)) return false;
  if (error.kind.startsWith('jsonrpc_')) return true;
  const status = /^http_(\d+)$/.exec(error.kind)?.[1];
  if (status === undefined) return false;
  const code = Number(status);
  return code >= 400 && code < 500 && code !== 401 && code !== 403;
}

export function toTools(result: Record<string, unknown>, into: ToolInfo[]): string | undefined {
  const tools = result.tools;
  if (!Array.isArray(tools)) throw new McpCallError('protocol', 'tools/list result without a tools array');
  for (const t of tools as Record<string, unknown>[]) {
    into.push({ name: String(t.name), description: t.description as string | undefined, inputSchema: t.inputSchema });
  }
  const next = result.nextCursor;
  return typeof next === 'string' && next !== '' ? next : undefined;
}

/** structuredContent when present (no second parse), else the first text block as JSON, else the text; the content blocks kept as they came. */
export function toToolCallResult(result: Record<string, unknown>): ToolCallResult {
  const isError = result.isError === true;
  const content = result.content;
  if (result.structuredContent !== undefined) return { isError, data: result.structuredContent, content };
  if (Array.isArray(content)) {
    for (const block of content as { type?: unknown; text?: unknown }[]) {
      if (block?.type === 'text' && typeof block.text === 'string')
        return { isError, data: parseOrText(block.text), content };
    }
  }
  return { isError, data: undefined, content };
}

/**
 * A result as the peer sent it to the host's model: its text blocks as received (indented JSON
 * stays indented), or its structured content when it sent no text. Untimed only: the token count.
 */
export function answerTexts(result: ToolCallResult): string[] {
  const texts = Array.isArray(result.content)
    ? (result.content as { type?: unknown; text?: unknown }[]).flatMap((b) =>
        b?.type === 'text' && typeof b.text === 'string' ? [b.text] : [],
      )
    : [];
  if (texts.length) return texts;
  return result.data === undefined ? [] : [typeof result.data === 'string' ? result.data : JSON.stringify(result.data)];
}

/** initialize's (or server/discover's) `instructions`, which hosts hand to the model. */
export const instructionsOf = (result: Record<string, unknown>): string | undefined =>
  typeof result.instructions === 'string' && result.instructions !== '' ? result.instructions : undefined;

function parseOrText(text: string): unknown {
  const first = text.charCodeAt(0);
  // Only `{` / `[` start a JSON payload worth trying; plain prose skips the throw.
  if (first !== 0x7b && first !== 0x5b) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A body that is not JSON-RPC, in a few words: an HTML page by its title, anything else by its start. */
export function bodySummary(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  if (title !== undefined || /^\s*<(!doctype|html)/i.test(text))
    return `an HTML page${title ? ` ("${title.slice(0, 80)}")` : ''}, not an MCP answer`;
  const start = text.trim().replace(/\s+/g, ' ').slice(0, 120);
  return start ? `"${start}"` : 'an empty body';
}

/**
 * An HTTP failure as both clients say it: the status, then the JSON-RPC error's message when the
 * body holds one, else the body in a few words; a 401 names the option that sends a token.
 */
export function httpFailure(status: number, body: string, authorized = false): string {
  let detail: string | undefined;
  try {
    const message = (JSON.parse(body) as RpcMessage).error?.message;
    if (typeof message === 'string') detail = message;
  } catch {
    // not JSON
  }
  detail ??= bodySummary(body);
  if (status === 401)
    detail += authorized
      ? ': the server refused the bearer token sent (is it the one the server has? --token, or MCP_DB_TOKEN)'
      : ': the server wants a bearer token (--token, or MCP_DB_TOKEN)';
  return `HTTP ${status}: ${detail}`;
}
