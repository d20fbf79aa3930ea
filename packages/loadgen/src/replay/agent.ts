import type { TraceRequest } from '@mcp-db-bench/contract';
import type { Transport } from '../clients/transport.js';
import type { AgentLoop } from '../drive/run-step.js';
import { ReplayConnection } from './connection.js';
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
  const cursor = new SessionCursor(options.trace.sessions, options.index, options.agents);
  /** the transport of a session: the era's own where there are two */
  const transportOf = (s: RecordedSession): Transport<unknown> =>
    options.modernTransport && sessionEra(s) === 'modern' ? options.modernTransport : options.transport;
  const connection = new ReplayConnection(transportOf(cursor.session), options.fill);
  return {
    pause: () => scaledThink(cursor.peek().thinkMs, options.think),
    async next() {
      const { request, from, begins } = cursor.next();
      // a new pass starts a new session: the last one is ended off the calls' path
      if (begins) connection.begin(transportOf(from));
      return connection.send(request, from);
    },
    get reinitialized() {
      return connection.restarts;
    },
    close: async () => {
      await options.transport.close();
      await options.modernTransport?.close();
    },
  };
}

/** Where one agent is in its share of the trace's sessions (round robin), request by request. */
class SessionCursor {
  readonly #sessions: readonly RecordedSession[];
  readonly #index: number;
  readonly #agents: number;
  #pass = 0;
  #position = 0;
  #session: RecordedSession;

  constructor(sessions: readonly RecordedSession[], index: number, agents: number) {
    this.#sessions = sessions;
    this.#index = index;
    this.#agents = agents;
    this.#session = this.#sessionOf(0);
  }

  /** the session under way */
  get session(): RecordedSession {
    return this.#session;
  }

  /** The request `next()` gives. */
  peek(): TraceRequest {
    return this.#session.requests[this.#position]!;
  }

  /** The next request, its session, and whether it begins that session; past a session's last, the agent's next one. */
  next(): { request: TraceRequest; from: RecordedSession; begins: boolean } {
    const begins = this.#position === 0;
    const from = this.#session;
    const request = from.requests[this.#position]!;
    this.#position++;
    if (this.#position === from.requests.length) {
      this.#pass++;
      this.#session = this.#sessionOf(this.#pass);
      this.#position = 0;
    }
    return { request, from, begins };
  }

  #sessionOf(k: number): RecordedSession {
    return this.#sessions[(this.#index + k * this.#agents) % this.#sessions.length]!;
  }
}

/** A recorded session's era: 2025 when it began with `initialize`, else 2026 (session-less). */
export function sessionEra(session: RecordedSession): 'legacy' | 'modern' {
  return session.requests[0]?.method === 'initialize' ? 'legacy' : 'modern';
}
