/**
 * What the simulator needs from an MCP client, whichever one it is: the lean HTTP client
 * built for the hot loop, a stdio client, or the official SDK client ("realistic" mode).
 */
export type Protocol = 'modern' | 'legacy' | 'auto';
export type Era = 'modern' | 'legacy';

export interface ToolInfo {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

export interface ToolCallResult {
  /** the tool answered `isError: true` (a tool-level failure, e.g. an unknown column) */
  isError: boolean;
  /** structuredContent when present, else the first text block parsed as JSON, else the text */
  data: unknown;
  /**
   * the result's `content` blocks as received: a reference kept, never read on the timed path;
   * the token count reads the text the host would hand its model from it (`answerTexts`)
   */
  content?: unknown;
}

/**
 * How a call ended, as a caller that keeps state sees it (a stateful workload, the write ledger):
 * `failed` is a tool error (the server answered, with a code), `unknown` a call that got no answer
 * (transport error, timeout).
 */
export type CallOutcome =
  | { kind: 'ok'; data: unknown }
  | { kind: 'failed'; code: string }
  | { kind: 'unknown'; reason: string };

/**
 * Over HTTP, a request that named a 2025-era session and got 404 (the server ended or forgot the
 * session) starts a new session, as the specification asks, and is retried once; a second 404 in a
 * row is the call's error. Each client counts these re-initializations in `reinitialized`.
 */
export interface McpClient {
  /** Starts the session: `server/discover` (modern) or initialize + initialized (legacy). */
  open(): Promise<{ era: Era; protocolVersion: string; instructions?: string }>;
  listTools(): Promise<ToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolCallResult>;
  /**
   * MCP's `ping` request on the session: the protocol with no tool and no database, the floor of
   * a server without an echo tool (a client that cannot send it leaves it out). 2025 era only:
   * the 2026-07-28 revision has no ping, and a session in it refuses (kind `protocol`).
   */
  ping?(): Promise<void>;
  /**
   * Walks away from the session without ending it (no `DELETE`), as a crashed or serverless agent
   * does: the server keeps it until it expires or is evicted. The next open() starts a new one.
   */
  abandon(): void;
  /** sessions the server ended under this client that it started again on its own (a running count) */
  readonly reinitialized: number;
  close(): Promise<void>;
}

/**
 * A call that failed below the tool: the transport, HTTP or JSON-RPC layer. `kind` is what
 * error accounting groups by: `network`, `timeout`, `http_<status>`, `jsonrpc_<code>`, `protocol`.
 */
export class McpCallError extends Error {
  override readonly name = 'McpCallError';
  /** a 404 to a request that named a 2025-era session: the server no longer knows it, so initialize again */
  readonly sessionEnded: boolean;
  constructor(
    readonly kind: string,
    message: string,
    options?: { cause?: unknown; sessionEnded?: boolean },
  ) {
    super(message, options);
    this.sessionEnded = options?.sessionEnded ?? false;
  }
}

/** Whether a failed request's session is gone (see McpCallError.sessionEnded). */
export const sessionEnded = (error: unknown): boolean => error instanceof McpCallError && error.sessionEnded;
