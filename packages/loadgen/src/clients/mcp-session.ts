import { MODERN_REVISION } from '@mcp-db-bench/contract';
import {
  type Era,
  McpCallError,
  type McpClient,
  type Protocol,
  sessionEnded,
  type ToolCallResult,
  type ToolInfo,
} from './client.js';
import type { Transport } from './transport.js';
import {
  type ClientInfo,
  DEFAULT_CLIENT_INFO,
  discoverOffersModern,
  initializeParams,
  instructionsOf,
  isLegacySignal,
  legacyVersionOf,
  modernMetaFragment,
  type RpcMessage,
  resultOf,
  toToolCallResult,
  toTools,
} from './wire.js';

export interface SessionOptions {
  protocol: Protocol;
  clientInfo?: ClientInfo;
}

/** A tools/call body split around its two variable parts (`prefix` args `suffix` id `}`), and its route. */
interface CallShape<R> {
  prefix: string;
  suffix: string;
  route: R;
}

/**
 * The protocol side of our hand-rolled clients, over any transport: era negotiation
 * (`server/discover`, else `initialize`), request ids, tools/list, tools/call and JSON-RPC errors.
 * Bodies are assembled from string fragments built once per tool and era, so a call costs about
 * one JSON.stringify of the arguments on top of the transport.
 */
export class Session<R> implements McpClient {
  readonly #transport: Transport<R>;
  readonly #protocol: Protocol;
  readonly #clientInfo: ClientInfo;
  /** `"_meta":{...}`, the modern era's envelope: the same on every request, so stringified once */
  readonly #meta: string;
  #era: Era | undefined;
  #nextId = 1;
  #listRoute: R | undefined;
  /** per tool name, for the current era */
  readonly #calls = new Map<string, CallShape<R>>();
  #reinitialized = 0;

  constructor(transport: Transport<R>, options: SessionOptions) {
    this.#transport = transport;
    this.#protocol = options.protocol;
    this.#clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.#meta = modernMetaFragment(this.#clientInfo);
  }

  async open(): Promise<{ era: Era; protocolVersion: string; instructions?: string }> {
    this.#setEra(undefined);
    const transport = this.#transport;
    transport.begin();
    if (this.#protocol !== 'legacy') {
      try {
        const result = await this.#request(
          'server/discover',
          transport.route('modern', 'server/discover'),
          this.#modernParams(''),
        );
        if (discoverOffersModern(result)) {
          this.#setEra('modern');
          return { era: 'modern', protocolVersion: MODERN_REVISION, instructions: instructionsOf(result) };
        }
        if (this.#protocol === 'modern') {
          throw new McpCallError(
            'protocol',
            `server does not offer ${MODERN_REVISION}: ${JSON.stringify(result.supportedVersions)}`,
          );
        }
      } catch (error) {
        const silent = transport.unansweredIsLegacy && error instanceof McpCallError && error.kind === 'timeout';
        if (this.#protocol === 'modern' || !(isLegacySignal(error) || silent)) throw error;
      }
    }
    return this.#initialize();
  }

  get reinitialized(): number {
    return this.#reinitialized;
  }

  abandon(): void {
    this.#setEra(undefined);
    this.#transport.abandon();
  }

  async listTools(): Promise<ToolInfo[]> {
    try {
      return await this.#listTools();
    } catch (error) {
      if (!sessionEnded(error)) throw error;
    }
    await this.#reinitialize();
    return this.#listTools();
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    let answer: RpcMessage;
    try {
      answer = await this.#call(name, args);
    } catch (error) {
      if (!sessionEnded(error)) throw error;
      await this.#reinitialize();
      answer = await this.#call(name, args);
    }
    return toToolCallResult(resultOf(answer));
  }

  /** The 2025-era `ping` (the 2026-07-28 revision has none: a protocol error there, sent nowhere). */
  async ping(): Promise<void> {
    const era = this.#requireEra();
    if (era === 'modern') throw new McpCallError('protocol', `ping is not a method of ${MODERN_REVISION}`);
    const ping = () => this.#request('ping', this.#transport.route(era, 'ping'), '{}');
    try {
      await ping();
    } catch (error) {
      if (!sessionEnded(error)) throw error;
      await this.#reinitialize();
      await ping();
    }
  }

  async close(): Promise<void> {
    this.#setEra(undefined);
    await this.#transport.close();
  }

  /**
   * The 2025-era handshake: initialize, then notifications/initialized on the session it opened.
   * A server full of sessions may end the new one before the notification arrives (404): the
   * handshake starts again, a few times at most.
   */
  async #initialize(tries = 3): Promise<{ era: Era; protocolVersion: string; instructions?: string }> {
    const transport = this.#transport;
    const result = await this.#request(
      'initialize',
      transport.route('legacy', 'initialize'),
      initializeParams(this.#clientInfo),
    );
    const version = legacyVersionOf(result);
    transport.negotiated(version);
    try {
      await transport.notify(
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        transport.route('legacy', 'notifications/initialized'),
      );
    } catch (error) {
      if (tries <= 1 || !sessionEnded(error)) throw error;
      return this.#initialize(tries - 1);
    }
    this.#setEra('legacy');
    return { era: 'legacy', protocolVersion: version, instructions: instructionsOf(result) };
  }

  /**
   * The server ended our session (404): a new one, as the specification asks. Until it is open the
   * era and its shapes stay, so a failed attempt leaves the next call to find the session gone again.
   */
  async #reinitialize(): Promise<void> {
    await this.#initialize();
    this.#reinitialized++;
  }

  async #listTools(): Promise<ToolInfo[]> {
    const era = this.#requireEra();
    this.#listRoute ??= this.#transport.route(era, 'tools/list');
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const inner = cursor === undefined ? '' : `"cursor":${JSON.stringify(cursor)}`;
      const params = era === 'modern' ? this.#modernParams(inner) : `{${inner}}`;
      cursor = toTools(await this.#request('tools/list', this.#listRoute, params), tools);
    } while (cursor !== undefined);
    return tools;
  }

  #call(name: string, args: Record<string, unknown>): Promise<RpcMessage> {
    const shape = this.#calls.get(name) ?? this.#callShape(name);
    const id = this.#nextId++;
    return this.#transport.request(`${shape.prefix}${JSON.stringify(args)}${shape.suffix}${id}}`, id, shape.route);
  }

  /** The era (none before negotiating and after closing): routes and shapes of the last one are dropped. */
  #setEra(era: Era | undefined): void {
    this.#era = era;
    this.#listRoute = undefined;
    this.#calls.clear();
  }

  #requireEra(): Era {
    if (this.#era === undefined) throw new McpCallError('protocol', 'call open() first');
    return this.#era;
  }

  /** Built once per tool name and era: everything of the body before the arguments, and the route. */
  #callShape(name: string): CallShape<R> {
    const era = this.#requireEra();
    const prefix = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":`;
    const suffix = era === 'modern' ? `,${this.#meta}},"id":` : '},"id":';
    const shape = { prefix, suffix, route: this.#transport.route(era, 'tools/call', name) };
    this.#calls.set(name, shape);
    return shape;
  }

  #modernParams(inner: string): string {
    return inner === '' ? `{${this.#meta}}` : `{${inner},${this.#meta}}`;
  }

  async #request(method: string, route: R, params: string): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return resultOf(
      await this.#transport.request(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`, id, route),
    );
  }
}
