import type { TraceRequest } from '@mcp-db-bench/contract';
import { McpCallError, sessionEnded } from '../clients/client.js';
import type { Transport } from '../clients/transport.js';
import {
  type ClientInfo,
  DEFAULT_CLIENT_INFO,
  LEGACY_REVISION,
  modernMeta,
  resultOf,
  toToolCallResult,
} from '../clients/wire.js';
import type { OpOutcome } from '../drive/run-step.js';
import type { RecordedSession } from './trace.js';

/**
 * A replaying agent's side of the wire: each request sent as recorded (method, tool, arguments
 * filled by `fill`), with the JSON-RPC ids, the revision its session's initialize agreed on, and
 * the restarts of sessions the server ended.
 */
export class ReplayConnection {
  #transport: Transport<unknown>;
  readonly #fill: (request: TraceRequest) => unknown;
  #nextId = 1;
  /** the revision initialize agreed on in this session; none: the session is the modern era's (no handshake) */
  #negotiated: string | undefined;
  #restarts = 0;

  constructor(transport: Transport<unknown>, fill: (request: TraceRequest) => unknown) {
    this.#transport = transport;
    this.#fill = fill;
  }

  /** sessions the server ended under this agent, started again (AgentLoop.reinitialized) */
  get restarts(): number {
    return this.#restarts;
  }

  /** A new session, on `transport` (its era's own where there are two); the last one is ended off the calls' path. */
  begin(transport: Transport<unknown>): void {
    this.#transport = transport;
    transport.begin();
    this.#negotiated = undefined;
  }

  /**
   * A request as recorded. When the server has ended the session (404 to a request naming it),
   * the session starts again as the spec asks (initialize and notifications/initialized, as the
   * recorded one began) and the request is sent once more: a restart, counted, not an error.
   */
  async send(request: TraceRequest, from: RecordedSession): Promise<OpOutcome> {
    const op = request.tool ?? request.method;
    // filled once: the retry sends the same arguments (a shaped write's row is taken once)
    const sent = this.#params(request, from);
    try {
      try {
        return await this.#exchange(request, from, sent);
      } catch (error) {
        if (!sessionEnded(error)) throw error;
      }
      this.#restarts++;
      await this.#exchange(INITIALIZE, from);
      await this.#exchange(INITIALIZED, from);
      if (request.method === INITIALIZED.method) return { op, ok: true };
      // a 404 ends only a 2025-era session, which the restart begins again: the same params hold
      return await this.#exchange(request, from, sent);
    } catch (error) {
      if (error instanceof McpCallError) return { op, ok: false, errorKind: error.kind };
      throw error;
    }
  }

  #params(request: TraceRequest, from: RecordedSession): Record<string, unknown> {
    const clientInfo: ClientInfo = from.client ?? DEFAULT_CLIENT_INFO;
    if (request.method === 'initialize')
      return { protocolVersion: from.protocolVersion ?? LEGACY_REVISION, capabilities: {}, clientInfo };
    const out: Record<string, unknown> =
      request.method === 'tools/call' ? { name: request.tool, arguments: this.#fill(request) ?? {} } : {};
    if (this.#negotiated === undefined) out._meta = modernMeta(clientInfo);
    return out;
  }

  /** One request as recorded; an McpCallError (the transport's, or the server's JSON-RPC error) propagates. */
  async #exchange(
    request: TraceRequest,
    from: RecordedSession,
    sent = this.#params(request, from),
  ): Promise<OpOutcome> {
    const op = request.tool ?? request.method;
    const era = request.method === 'initialize' || this.#negotiated !== undefined ? 'legacy' : 'modern';
    const route = this.#transport.route(era, request.method, request.tool);
    if (request.durationMs === undefined) {
      // a notification: no id, no answer
      await this.#transport.notify(JSON.stringify({ jsonrpc: '2.0', method: request.method, params: sent }), route);
      return { op, ok: true };
    }
    const id = this.#nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: sent });
    const result = resultOf(await this.#transport.request(body, id, route));
    if (request.method === 'initialize') {
      this.#negotiated = typeof result.protocolVersion === 'string' ? result.protocolVersion : LEGACY_REVISION;
      this.#transport.negotiated(this.#negotiated);
    }
    if (request.method === 'tools/call') {
      const answer = toToolCallResult(result);
      if (answer.isError) return { op, ok: false, errorKind: `tool:${toolErrorCode(answer.data)}` };
    }
    return { op, ok: true };
  }
}

/** The handshake a restarted session sends: its params are the recorded session's (see `#params`). */
const handshake = (method: string): TraceRequest => ({
  type: 'request',
  session: '',
  at: 0,
  method,
  thinkMs: 0,
  bytes: { request: 0, response: 0 },
});
const INITIALIZE: TraceRequest = { ...handshake('initialize'), durationMs: 0 };
/** a notification: no duration */
const INITIALIZED: TraceRequest = handshake('notifications/initialized');

/** A tool error's code: ours answers {"error":{"code":...}}, other servers a bare {"code":...} (as the recorder reads it). */
function toolErrorCode(data: unknown): string {
  const body = data as { code?: unknown; error?: { code?: unknown } } | undefined;
  const code = body?.error?.code ?? body?.code;
  return typeof code === 'string' ? code : 'error';
}
