import {
  Client,
  type ClientOptions,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Era, McpCallError, type McpClient, type Protocol, type ToolCallResult, type ToolInfo } from './client.js';
import {
  type ClientInfo,
  DEFAULT_CLIENT_INFO,
  DEFAULT_TIMEOUT_MS,
  httpFailure,
  MODERN_REVISION,
  toToolCallResult,
} from './wire.js';

export type SdkTarget =
  | { kind: 'http'; url: string; token?: string; headers?: Record<string, string> }
  | { kind: 'stdio'; command: string; args?: readonly string[]; env?: Record<string, string>; cwd?: string };

export interface SdkClientOptions {
  target: SdkTarget;
  protocol: Protocol;
  clientInfo?: ClientInfo;
  /** per call; 0 = the SDK's own default (60 s). Default 30 s. */
  timeoutMs?: number;
}

/**
 * The official SDK client, for "realistic" runs: what a real agent host pays per call,
 * validation and all. Its errors are mapped to the same McpCallError kinds as the lean clients.
 */
export class SdkClient implements McpClient {
  readonly #options: SdkClientOptions;
  readonly #requestOptions: { timeout?: number };
  #client: Client | undefined;
  #reinitialized = 0;
  /** an Authorization header goes with each request: a 401 then means it was refused */
  readonly #authorized: boolean;

  constructor(options: SdkClientOptions) {
    this.#options = options;
    const target = options.target;
    this.#authorized =
      target.kind === 'http' &&
      (!!target.token || Object.keys(target.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'));
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#requestOptions = timeout > 0 ? { timeout } : {};
  }

  async open(): Promise<{ era: Era; protocolVersion: string; instructions?: string }> {
    // The SDK negotiates inside connect(): opening again means a new session on a new transport.
    await this.close();
    return this.#connect();
  }

  get reinitialized(): number {
    return this.#reinitialized;
  }

  abandon(): void {
    const client = this.#client;
    this.#client = undefined;
    // the transport closes; the session is left to the server (no DELETE)
    void client?.close().catch(() => {});
  }

  async listTools(): Promise<ToolInfo[]> {
    const { tools } = await this.#use((client) => client.listTools(undefined, this.#requestOptions));
    return tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    const result = await this.#use((client) => client.callTool({ name, arguments: args }, this.#requestOptions));
    return toToolCallResult(result as Record<string, unknown>);
  }

  async ping(): Promise<void> {
    await this.#use((client) => client.ping(this.#requestOptions));
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    // A 2025-era session over HTTP is ended (DELETE), as a well-behaved host does; the SDK's close() alone leaves it open.
    const transport = client?.transport;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined)
      await transport.terminateSession().catch(() => {});
    await client?.close().catch(() => {});
  }

  async #connect(): Promise<{ era: Era; protocolVersion: string; instructions?: string }> {
    const client = new Client(this.#options.clientInfo ?? DEFAULT_CLIENT_INFO, clientOptions(this.#options.protocol));
    try {
      await client.connect(this.#transport(), this.#requestOptions);
    } catch (error) {
      await client.close().catch(() => {});
      throw toCallError(error, this.#authorized);
    }
    this.#client = client;
    const protocolVersion = client.getNegotiatedProtocolVersion() ?? '';
    const era = client.getProtocolEra() ?? 'legacy';
    return { era, protocolVersion, instructions: client.getInstructions() || undefined };
  }

  /**
   * One request on the session; when the server answers 404 to the session's id, a new session
   * (its transport's closed, nothing to DELETE) and the request once more.
   */
  async #use<T>(request: (client: Client) => Promise<T>): Promise<T> {
    const client = this.#connected();
    try {
      return await request(client);
    } catch (error) {
      const failure = toCallError(error, this.#authorized);
      const transport = client.transport;
      const ended =
        failure.kind === 'http_404' &&
        transport instanceof StreamableHTTPClientTransport &&
        transport.sessionId !== undefined;
      if (!ended) throw failure;
    }
    this.abandon();
    await this.#connect();
    this.#reinitialized++;
    try {
      return await request(this.#connected());
    } catch (error) {
      throw toCallError(error, this.#authorized);
    }
  }

  #connected(): Client {
    if (this.#client === undefined) throw new McpCallError('protocol', 'call open() first');
    return this.#client;
  }

  #transport(): Transport {
    const target = this.#options.target;
    if (target.kind === 'stdio') {
      return new StdioClientTransport({
        command: target.command,
        args: target.args ? [...target.args] : [],
        env: { ...stringEnv(process.env), ...target.env },
        cwd: target.cwd,
        stderr: 'pipe',
      });
    }
    const headers: Record<string, string> = { ...target.headers };
    if (target.token) headers.Authorization = `Bearer ${target.token}`;
    return new StreamableHTTPClientTransport(new URL(target.url), { requestInit: { headers } });
  }
}

function clientOptions(protocol: Protocol): ClientOptions {
  if (protocol === 'modern') return { versionNegotiation: { mode: { pin: MODERN_REVISION } } };
  if (protocol === 'auto') return { versionNegotiation: { mode: 'auto' } };
  return {};
}

function stringEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'ENOENT',
]);

/** The SDK's error zoo onto our kinds: JSON-RPC codes, HTTP statuses, timeouts, dead transports. */
export function toCallError(error: unknown, authorized = false): McpCallError {
  if (error instanceof McpCallError) return error;
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof ProtocolError) return new McpCallError(`jsonrpc_${error.code}`, message, { cause: error });
  if (error instanceof SdkHttpError && typeof error.status === 'number') {
    // the SDK puts the whole body in its message ("Error POSTing to endpoint: <!DOCTYPE html>...")
    const body = message.replace(/^Error \w+ing to endpoint: /, '');
    return new McpCallError(`http_${error.status}`, httpFailure(error.status, body, authorized), {
      cause: error,
    });
  }
  // JSON that is not JSON-RPC: the SDK's schema check says so in a page of zod issues
  if ((error as Error)?.name === 'ZodError')
    return new McpCallError('protocol', 'the answer is JSON but not JSON-RPC 2.0: is the target an MCP endpoint?', {
      cause: error,
    });
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout) return new McpCallError('timeout', message, { cause: error });
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.SendFailed ||
      error.code === SdkErrorCode.NotConnected
    ) {
      return new McpCallError('network', message, { cause: error });
    }
    // A failed negotiation wraps what went wrong underneath (a refused connection, a status).
    if (error.code === SdkErrorCode.EraNegotiationFailed && error.cause !== undefined) {
      const inner = toCallError(error.cause, authorized);
      if (inner.kind !== 'protocol') return new McpCallError(inner.kind, message, { cause: error });
    }
  }
  if (isNetworkFailure(error)) return new McpCallError('network', message, { cause: error });
  return new McpCallError('protocol', message, { cause: error });
}

/** fetch's `TypeError: fetch failed` and socket errors, found by their code down the cause chain. */
function isNetworkFailure(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('UND_ERR_'))) return true;
    if (e instanceof TypeError && e.message === 'fetch failed') return true;
  }
  return false;
}
