/**
 * A profile lets the simulator drive another MCP server through that server's own tools: it
 * wraps a real client and answers our contract's tool calls (list_tables, get, query, ...) in
 * our output shapes, so agents learn keys the same way and answers compare like with like.
 */
import type { ToolName } from '@mcp-db-bench/contract';
import type { McpClient, ToolCallResult, ToolInfo } from '../clients/client.js';
import { answerTexts } from '../clients/wire.js';

/** What a profile may need to be told about its target: `--profile NAME:ENGINE`, `--sql-tool`, `--sql-arg`, `--service`. */
export interface PeerOptions {
  /** the SQL dialect of the database behind the target (profiles that write SQL) */
  engine?: string;
  /** sql-tool: the raw-SQL tool's name and its argument */
  sqlTool?: string;
  sqlArg?: string;
  /** faucet: the `service` argument */
  service?: string;
}

/** An option of `PeerOptions`: a profile names those it reads, and the CLI refuses the others. */
export type PeerOption = keyof PeerOptions;

/** One of our tool calls, answered through the peer's tools. */
export type Handler = (args: Record<string, unknown>) => Promise<ToolCallResult>;

/** A profile bound to one peer client: which of our tools it serves, and how. */
export interface Translation {
  /** our tools it can serve, each with its handler */
  tools: Partial<Record<ToolName, Handler>>;
  /** the peer's tools were listed (some profiles learn the engine from them) */
  listed?(tools: readonly ToolInfo[]): void;
  /** a new session began on the peer: forget what the last one discovered, as a new agent would */
  opened?(): void;
}

export interface PeerProfile {
  name: string;
  /** one line for --help and docs */
  summary: string;
  /** our tools it cannot serve, with the reason the report gives for skipping what needs them */
  cannot: Partial<Record<ToolName, string>>;
  /** the options it reads (none when left out): giving it any other is a usage error */
  takes?: readonly PeerOption[];
  /** a usage problem with these options, or undefined */
  check?(options: PeerOptions): string | undefined;
  /** undefined: identity (our own server) */
  translate?(peer: McpClient, options: PeerOptions): Translation;
}

/**
 * A sink for what the peer sent that a host hands to its model: initialize's `instructions`,
 * the tools of tools/list (name, description, input schema) and each tool result's text as
 * received (its structured content when it sent no text).
 */
export type RawSink = (kind: 'instructions' | 'tools' | 'call', text: string) => void;

/** A tool-level failure in our shape (`{ error: { code, message } }`), so runs count it as `tool:<code>`. */
export function toolError(code: string, message: string): ToolCallResult {
  return { isError: true, data: { error: { code, message } } };
}

export const ok = (data: unknown): ToolCallResult => ({ isError: false, data });

/**
 * The client the simulator uses for a target: the profile's translation over the peer's client.
 * `tap` records the peer's raw answers for the untimed token count; off (the default) it costs nothing.
 */
export class PeerClient implements McpClient {
  #sink: RawSink | undefined;
  /** the peer as the translation sees it: every answer goes to the sink when one is set */
  readonly #tapped: McpClient;
  readonly #translation: Translation | undefined;

  constructor(
    readonly profile: PeerProfile,
    readonly peer: McpClient,
    options: PeerOptions = {},
  ) {
    this.#tapped = {
      open: () => peer.open(),
      listTools: () => peer.listTools(),
      abandon: () => peer.abandon(),
      get reinitialized() {
        return peer.reinitialized;
      },
      close: () => peer.close(),
      // untapped (the timed steps): the peer's own promise, not one more around it
      callTool: (name, args) => {
        const sink = this.#sink;
        if (!sink) return peer.callTool(name, args);
        return peer.callTool(name, args).then((result) => {
          this.#drain(sink, result);
          return result;
        });
      },
    };
    this.#translation = profile.translate?.(this.#tapped, options);
  }

  tap(sink: RawSink | undefined): void {
    this.#sink = sink;
  }

  open() {
    // untapped and nothing to forget (our own server): the peer's open, not one await more
    return this.#sink || this.#translation?.opened ? this.#open() : this.peer.open();
  }

  async #open() {
    const opened = await this.peer.open();
    if (opened.instructions) this.#sink?.('instructions', opened.instructions);
    this.#translation?.opened?.();
    return opened;
  }

  async listTools(): Promise<ToolInfo[]> {
    const tools = await this.peer.listTools();
    this.#sink?.('tools', JSON.stringify(tools));
    if (!this.#translation) return tools;
    this.#translation.listed?.(tools);
    const offered = new Set(tools.map((t) => t.name));
    // our tools it serves, when the peer offers what they need (a handler fails clearly otherwise)
    return Object.keys(this.#translation.tools).map((name) => ({
      name,
      description: `${this.profile.name}: via ${[...offered].join(', ')}`,
    }));
  }

  /** The peer's own `ping`, when its client can send one: no translation, no tool. */
  get ping(): (() => Promise<void>) | undefined {
    const peer = this.peer;
    return peer.ping && (() => peer.ping!());
  }

  callTool(name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    if (!this.#translation) return this.#tapped.callTool(name, args);
    const handler = this.#translation.tools[name as ToolName];
    if (!handler)
      return Promise.resolve(
        toolError('unsupported', this.profile.cannot[name as ToolName] ?? `${this.profile.name}: no ${name}`),
      );
    return handler(args);
  }

  abandon(): void {
    this.peer.abandon();
  }

  get reinitialized(): number {
    return this.peer.reinitialized;
  }

  close() {
    return this.peer.close();
  }

  /** The answer as the peer sent it; only when tapped, so timed calls pay nothing for it. */
  #drain(sink: RawSink, result: ToolCallResult): void {
    for (const text of answerTexts(result)) sink('call', text);
  }
}
