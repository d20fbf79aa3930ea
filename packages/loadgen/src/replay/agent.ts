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
import type { AgentLoop, OpOutcome } from '../drive/run-step.js';
import type { RecordedSession, Trace } from './trace.js';

export interface ReplayAgentOptions {
  trace: Trace;
  /** a new transport for this agent (its own connection) */
  transport: Transport<unknown>;
  /**
   * Where the transport keeps the era of its first session (a stdio server process: once
   * initialized, it answers no `server/discover`): a second one of this agent's own, for the
   * 2026-era sessions, while `transport` takes the 2025-era ones. Absent: one for both (HTTP).
   */
  modernTransport?: Transport<unknown>;
  /** the agent's number in the step, and the step's agents: they share out the sessions round robin */
  index: number;
  agents: number;
  /** the factor recorded think times are scaled by: 1 as recorded, 0 none */
  think: number;
  /**
   * A tools/call's arguments to send, from the recorded ones (`values` of the trace: `keep` sends
   * them as they are; `shape` needs them filled; `drop` has none).
   */
  fill(request: TraceRequest): unknown;
}

/** A recorded think time scaled by --think: `0` none, `1` as recorded. */
export const scaledThink = (recordedMs: number, factor: number): number => Math.max(0, recordedMs * factor);

/**
 * One agent replaying recorded sessions: each `next()` sends the next request of its session as
 * the host did (method, tool, arguments), `pause()` is the host's think time before it, scaled.
 * Agent i replays sessions i, i + agents, i + 2 × agents, ... of the trace (round robin, wrapping
 * around), each from its start (a new `initialize` with the recorded protocol version and client,
 * or none: session-less, in the modern era), until the step ends.
 */
export function startReplayAgent(options: ReplayAgentOptions): AgentLoop {
  const { trace } = options;
  const sessions = trace.sessions;
  let pass = 0;
  let session = sessionOf(0);
  /** the transport of the session under way: the era's own where there are two */
  let transport = transportOf(session);
  let position = 0;
  let nextId = 1;
  /** the revision initialize agreed on in this pass; none: the session is the modern era's (no handshake) */
  let negotiated: string | undefined;
  /** sessions the server ended under this agent, started again (AgentLoop.reinitialized) */
  let restarts = 0;

  function sessionOf(k: number): RecordedSession {
    return sessions[(options.index + k * options.agents) % sessions.length]!;
  }

  function transportOf(s: RecordedSession): Transport<unknown> {
    return options.modernTransport && sessionEra(s) === 'modern' ? options.modernTransport : options.transport;
  }

  function params(request: TraceRequest, from: RecordedSession): Record<string, unknown> {
    const clientInfo: ClientInfo = from.client ?? DEFAULT_CLIENT_INFO;
    if (request.method === 'initialize')
      return { protocolVersion: from.protocolVersion ?? LEGACY_REVISION, capabilities: {}, clientInfo };
    const out: Record<string, unknown> =
      request.method === 'tools/call' ? { name: request.tool, arguments: options.fill(request) ?? {} } : {};
    if (negotiated === undefined) out._meta = modernMeta(clientInfo);
    return out;
  }

  /** One request as recorded; an McpCallError (the transport's, or the server's JSON-RPC error) propagates. */
  async function exchange(
    request: TraceRequest,
    from: RecordedSession,
    sent = params(request, from),
  ): Promise<OpOutcome> {
    const op = request.tool ?? request.method;
    const era = request.method === 'initialize' || negotiated !== undefined ? 'legacy' : 'modern';
    const route = transport.route(era, request.method, request.tool);
    if (request.durationMs === undefined) {
      // a notification: no id, no answer
      await transport.notify(JSON.stringify({ jsonrpc: '2.0', method: request.method, params: sent }), route);
      return { op, ok: true };
    }
    const id = nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: sent });
    const result = resultOf(await transport.request(body, id, route));
    if (request.method === 'initialize') {
      negotiated = typeof result.protocolVersion === 'string' ? result.protocolVersion : LEGACY_REVISION;
      transport.negotiated(negotiated);
    }
    if (request.method === 'tools/call') {
      const answer = toToolCallResult(result);
      if (answer.isError) return { op, ok: false, errorKind: `tool:${toolErrorCode(answer.data)}` };
    }
    return { op, ok: true };
  }

  /**
   * A request as recorded. When the server has ended the session (404 to a request naming it),
   * the session starts again as the spec asks (initialize and notifications/initialized, as the
   * recorded one began) and the request is sent once more: a restart, counted, not an error.
   */
  async function send(request: TraceRequest, from: RecordedSession): Promise<OpOutcome> {
    const op = request.tool ?? request.method;
    // filled once: the retry sends the same arguments (a shaped write's row is taken once)
    const sent = params(request, from);
    try {
      try {
        return await exchange(request, from, sent);
      } catch (error) {
        if (!sessionEnded(error)) throw error;
      }
      restarts++;
      await exchange(INITIALIZE, from);
      await exchange(INITIALIZED, from);
      if (request.method === INITIALIZED.method) return { op, ok: true };
      // a 404 ends only a 2025-era session, which the restart begins again: the same params hold
      return await exchange(request, from, sent);
    } catch (error) {
      if (error instanceof McpCallError) return { op, ok: false, errorKind: error.kind };
      throw error;
    }
  }

  return {
    pause: () => scaledThink(session.requests[position]!.thinkMs, options.think),
    async next() {
      if (position === 0) {
        // a new pass starts a new session: the last one is ended off the calls' path
        transport = transportOf(session);
        transport.begin();
        negotiated = undefined;
      }
      const from = session;
      const request = from.requests[position]!;
      position++;
      if (position === session.requests.length) {
        pass++;
        session = sessionOf(pass);
        position = 0;
      }
      return send(request, from);
    },
    get reinitialized() {
      return restarts;
    },
    close: async () => {
      await options.transport.close();
      await options.modernTransport?.close();
    },
  };
}

/** A recorded session's era: 2025 when it began with `initialize`, else 2026 (session-less). */
export function sessionEra(session: RecordedSession): 'legacy' | 'modern' {
  return session.requests[0]?.method === 'initialize' ? 'legacy' : 'modern';
}

/** The handshake a restarted session sends: its params are the recorded session's (see `params`). */
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
