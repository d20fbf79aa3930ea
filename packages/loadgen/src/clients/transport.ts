import type { Era } from './client.js';
import type { RpcMessage } from './wire.js';

/**
 * How a session's messages travel, and nothing else: the session (session.ts) builds every
 * message, negotiates the era and maps results; a transport carries bodies and reports its own
 * failures as McpCallError (`network`, `timeout`, `http_<status>`, `protocol`), as the SDK splits
 * Protocol from Transport.
 *
 * `R` is what a transport sends beside a body (HTTP: its headers). The session asks for it once
 * per method, tool and era and hands it back with each message, so a call builds nothing twice.
 */
export interface Transport<R> {
  /** On stdio a 2025 server may never answer a method it does not know: a silent probe means 2025. */
  readonly unansweredIsLegacy: boolean;
  /** Before a negotiation: start if not started, and leave the era (and session) of the last one. */
  begin(): void;
  /** What messages of `method` (a tools/call of `tool`) carry in `era`. */
  route(era: Era, method: string, tool?: string): R;
  /** The 2025-era revision `initialize` agreed on, which HTTP names on every later request. */
  negotiated(version: string): void;
  /** Forgets the 2025-era session without ending it (HTTP: no `DELETE`, now or later). */
  abandon(): void;
  /**
   * Sends one request; resolves with the message answering `id`. A 404 to a request that named
   * a session rejects with `sessionEnded` set, and the transport forgets that session.
   */
  request(body: string, id: number, route: R): Promise<RpcMessage>;
  notify(body: string, route: R): Promise<void>;
  close(): Promise<void>;
}
