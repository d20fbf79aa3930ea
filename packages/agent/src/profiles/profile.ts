/**
 * A profile lets the simulator drive another MCP server through that server's own tools: it
 * wraps a real client and answers our contract's tool calls (list_tables, get, query, ...) in
 * our output shapes, so agents learn keys the same way and answers compare like with like.
 */
import type { ToolName } from '@mcp-db-bench/contract';
import type { McpClient, ToolCallResult, ToolInfo } from '../clients/client.js';

/** What a profile may need to be told about its target: `--profile NAME:ENGINE`, `--sql-tool`, `--sql-arg`, `--service`. */
export interface ProfileOptions {
  /** the SQL dialect of the database behind the target (profiles that write SQL) */
  engine?: string;
  /** sql-tool: the raw-SQL tool's name and its argument */
  sqlTool?: string;
  sqlArg?: string;
  /** faucet: the `service` argument */
  service?: string;
}

/** One of our tool calls, answered through the peer's tools. */
export type Handler = (args: Record<string, unknown>) => Promise<ToolCallResult>;

/** A profile bound to one peer client: which of our tools it serves, and how. */
export interface Translation {
  /** our tools it can serve, each with its handler */
  tools: Partial<Record<ToolName, Handler>>;
  /** the peer's tools were listed (some profiles learn the engine from them) */
  listed?(tools: readonly ToolInfo[]): void;
}

export interface Profile {
  name: string;
  /** one line for --help and docs */
  summary: string;
  /** our tools it cannot serve, with the reason the report gives for skipping what needs them */
  cannot: Partial<Record<ToolName, string>>;
  /** a usage problem with these options, or undefined */
  check?(options: ProfileOptions): string | undefined;
  /** undefined: identity (our own server) */
  translate?(peer: McpClient, options: ProfileOptions): Translation;
}

/** A sink for every raw answer the peer sent (tools/list and tool results), as the host model would read it. */
export type RawSink = (kind: 'tools' | 'call', text: string) => void;

/** A tool-level failure in our shape (`{ error: { code, message } }`), so runs count it as `tool:<code>`. */
export function toolError(code: string, message: string): ToolCallResult {
  return { isError: true, data: { error: { code, message } } };
}

export const ok = (data: unknown): ToolCallResult => ({ isError: false, data });

/**
 * The client the simulator uses for a target: the profile's translation over the peer's client.
 * `tap` records the peer's raw answers for the untimed token count; off (the default) it costs nothing.
 */
export class ProfileClient implements McpClient {
  #sink: RawSink | undefined;
  readonly #translation: Translation | undefined;

  constructor(
    readonly profile: Profile,
    readonly peer: McpClient,
    options: ProfileOptions = {},
  ) {
    this.#translation = profile.translate?.(this.#tapped(), options);
  }

  tap(sink: RawSink | undefined): void {
    this.#sink = sink;
  }

  open() {
    return this.peer.open();
  }

  async listTools(): Promise<ToolInfo[]> {
    const tools = await this.peer.listTools();
    this.#sink?.('tools', JSON.stringify(tools));
    if (!this.#translation) return tools;
    this.#translation.listed?.(tools);
    const offered = new Set(tools.map((t) => t.name));
    // our tools it serves, when the peer offers what they need (a handler fails clearly otherwise)
    return Object.keys(this.#translation.tools).map((name) => ({ name, description: `${this.profile.name}: via ${[...offered].join(', ')}` }));
  }

  async callTool(name: string, args: Record<string, unknown>) {
    if (!this.#translation) {
      const result = await this.peer.callTool(name, args);
      this.#sink?.('call', JSON.stringify(result.data));
      return result;
    }
    const handler = this.#translation.tools[name as ToolName];
    if (!handler) return toolError('unsupported', this.profile.cannot[name as ToolName] ?? `${this.profile.name}: no ${name}`);
    return handler(args);
  }

  close() {
    return this.peer.close();
  }

  /** The peer as the translation sees it: every answer goes to the sink when one is set. */
  #tapped(): McpClient {
    return {
      open: () => this.peer.open(),
      listTools: () => this.peer.listTools(),
      close: () => this.peer.close(),
      callTool: async (name, args) => {
        const result = await this.peer.callTool(name, args);
        this.#sink?.('call', JSON.stringify(result.data));
        return result;
      },
    };
  }
}
