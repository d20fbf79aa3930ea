import type { McpClient, Protocol } from './client.js';
import { LeanHttpClient } from './lean-http.js';
import { SdkClient } from './sdk.js';
import { StdioClient } from './stdio.js';
import type { ClientInfo } from './wire.js';

export * from './client.js';
export { createHttpTransport, LeanHttpClient, type LeanHttpOptions } from './lean-http.js';
export { Session, type SessionOptions } from './mcp-session.js';
export { SdkClient, type SdkClientOptions, type SdkTarget, toCallError } from './sdk.js';
export { createStdioTransport, StdioClient, type StdioOptions } from './stdio.js';
export type { Transport } from './transport.js';
export {
  type ClientInfo,
  DEFAULT_CLIENT_INFO,
  DEFAULT_TIMEOUT_MS,
  LEGACY_REVISION,
  MODERN_REVISION,
  modernMeta,
} from './wire.js';

export type Target =
  | { kind: 'http'; url: string }
  | { kind: 'stdio'; command: string; args: readonly string[]; env?: Record<string, string>; cwd?: string };

export interface CreateClientOptions {
  /** `lean`: our own clients (undici over HTTP, or StdioClient); `sdk`: the official SDK client */
  client: 'lean' | 'sdk';
  protocol: Protocol;
  /** HTTP only: sent as `Authorization: Bearer <token>` (stdio has no auth, so it is ignored there) */
  token?: string;
  /** HTTP only: extra headers on every request */
  headers?: Record<string, string>;
  /** per call; 0 = none. Default 30 s. */
  timeoutMs?: number;
  clientInfo?: ClientInfo;
}

/** One client for one simulated agent: each owns its connection (HTTP) or its server process (stdio). */
export function createClient(target: Target, options: CreateClientOptions): McpClient {
  const { protocol, timeoutMs, clientInfo } = options;
  if (options.client === 'sdk') {
    const sdkTarget =
      target.kind === 'http'
        ? { kind: 'http' as const, url: target.url, token: options.token, headers: options.headers }
        : target;
    return new SdkClient({ target: sdkTarget, protocol, timeoutMs, clientInfo });
  }
  if (target.kind === 'stdio') {
    return new StdioClient({
      command: target.command,
      args: target.args,
      env: target.env,
      cwd: target.cwd,
      protocol,
      timeoutMs,
      clientInfo,
    });
  }
  return new LeanHttpClient({
    url: target.url,
    protocol,
    token: options.token,
    headers: options.headers,
    timeoutMs,
    clientInfo,
  });
}
