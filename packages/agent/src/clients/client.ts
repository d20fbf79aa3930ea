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

export interface McpClient {
  /** Starts the session: `server/discover` (modern) or initialize + initialized (legacy). */
  open(): Promise<{ era: Era; protocolVersion: string; instructions?: string }>;
  listTools(): Promise<ToolInfo[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolCallResult>;
  close(): Promise<void>;
}

/**
 * A call that failed below the tool: the transport, HTTP or JSON-RPC layer. `kind` is what
 * error accounting groups by: `network`, `timeout`, `http_<status>`, `jsonrpc_<code>`, `protocol`.
 */
export class McpCallError extends Error {
  override readonly name = 'McpCallError';
  constructor(
    readonly kind: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
