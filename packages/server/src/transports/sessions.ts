import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Limits of the 2025-era session table (per server process). */
export interface SessionLimits {
  /** most sessions one process keeps at once */
  maxSessions: number;
  /** a session unused this long is forgotten (its id then gets 404) */
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 10_000, idleMs: 30 * 60_000 };

/**
 * At the limit, a new session may take the place of one idle at least this long; only when
 * every session was used more recently than this is `initialize` refused.
 */
const RECLAIMABLE_AFTER_MS = 60_000;

export type OpenResult = { id: string } | { refused: string; retryAfterSeconds: number };

/**
 * The `Mcp-Session-Id`s of 2025-era clients. A session holds no server state but its last use:
 * every tool answer depends only on the request (cursors and transactions are explicit handles),
 * so a session exists to be ended (`DELETE`), to expire, and to be refused when unknown (404).
 *
 * Ids are `<issuer>.<nonce>.<mac>`: the mac (a keyed SHA-256 under a key shared by one server's
 * worker processes, or by separate servers given the same `--session-key`) lets a sibling
 * process honour a session it did not issue, since the cluster or a load balancer hands out
 * connections, not sessions. The issuer is random per process, so siblings on different
 * machines never collide. A process answers 404 for its own ids it no longer holds (expired or
 * ended), for siblings' ids it saw end (remembered, up to `maxSessions` of them), and for ids no
 * sibling issued. Ends are told to siblings (`onEnded`) where someone listens (the `--workers`
 * primary), so a `DELETE` ends a session in every worker of one server; idle expiry is per process.
 */
export class Sessions {
  readonly #limits: SessionLimits;
  /** the key as the two secret prefixes of a nested keyed hash (see #mac) */
  readonly #inner: string;
  readonly #outer: string;
  readonly #issuer: string;
  /** this process's ids: a random start, then a counter (the mac, not the nonce, makes an id unguessable) */
  readonly #boot = randomBytes(9).toString('base64url');
  #issued = 0;
  /** id → last use (ms), least recently used first */
  readonly #live = new Map<string, number>();
  /**
   * siblings' ids that ended here (DELETE, told by a sibling, idle expiry, reclaimed): their mac
   * stays valid forever, so they are remembered, the oldest forgotten past `maxSessions` of them
   */
  readonly #ended = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;
  onEnded: ((id: string) => void) | undefined;

  constructor(limits: SessionLimits = DEFAULT_SESSION_LIMITS, key: Buffer = randomBytes(32), issuer = randomBytes(6).toString('base64url')) {
    this.#limits = limits;
    this.#inner = `${key.toString('base64')}i`;
    this.#outer = `${key.toString('base64')}o`;
    this.#issuer = issuer;
    this.#sweeper = setInterval(() => this.sweep(Date.now()), Math.min(limits.idleMs, 10_000)).unref();
  }

  get size(): number {
    return this.#live.size;
  }

  /** A new session, or why not (the table is full of recently used sessions). */
  open(now = Date.now()): OpenResult {
    if (this.#live.size >= this.#limits.maxSessions && !this.#reclaim(now)) {
      return {
        refused: `too many open sessions (this server keeps at most ${this.#limits.maxSessions}, all used within the last ${RECLAIMABLE_AFTER_MS / 1000} s); end unused sessions with DELETE, or raise --max-sessions`,
        retryAfterSeconds: RECLAIMABLE_AFTER_MS / 1000,
      };
    }
    const nonce = `${this.#boot}${(this.#issued++).toString(36)}`;
    const id = `${this.#issuer}.${nonce}.${this.#mac(`${this.#issuer}.${nonce}`)}`;
    this.#live.set(id, now);
    return { id };
  }

  /** Marks a use; false when the id names no live session of this server (answer 404). */
  use(id: string, now = Date.now()): boolean {
    const seen = this.#live.get(id);
    if (seen !== undefined) {
      this.#live.delete(id);
      if (now - seen > this.#limits.idleMs) {
        this.forget(id, now);
        return false;
      }
      // Re-inserted, so the map stays ordered from least to most recently used.
      this.#live.set(id, now);
      return true;
    }
    if (!this.#isSiblings(id)) return false;
    // A sibling's session seen here first: honour it like one of ours.
    if (this.#live.size >= this.#limits.maxSessions && !this.#reclaim(now)) return false;
    this.#live.set(id, now);
    return true;
  }

  /** Ends a session (DELETE); false when it was not live. Siblings are told. */
  end(id: string, now = Date.now()): boolean {
    if (!this.use(id, now)) return false;
    // Remembered as ended here too: a sibling's id would otherwise be honoured again on its next use.
    this.forget(id, now);
    this.onEnded?.(id);
    return true;
  }

  /** This session ended, here or in a sibling. */
  forget(id: string, now = Date.now()): void {
    this.#live.delete(id);
    // Our own ids need no record: an id we issued and no longer hold is refused anyway.
    if (id.startsWith(`${this.#issuer}.`)) return;
    this.#ended.delete(id);
    if (this.#ended.size >= this.#limits.maxSessions) this.#ended.delete(this.#ended.keys().next().value!);
    this.#ended.set(id, now);
  }

  /** Drops expired sessions, from the least recently used end. */
  sweep(now: number): void {
    const { idleMs } = this.#limits;
    for (const [id, seen] of this.#live) {
      if (now - seen <= idleMs) break;
      this.forget(id, now);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
    this.#live.clear();
    this.#ended.clear();
  }

  /** Frees the least recently used session if it has been idle long enough (constant time: the map's first entry). */
  #reclaim(now: number): boolean {
    const first = this.#live.entries().next();
    // Idle past the expiry, or at least a minute: either way its client can initialize again.
    if (first.done || now - first.value[1] < Math.min(RECLAIMABLE_AFTER_MS, this.#limits.idleMs)) return false;
    this.forget(first.value[0], now);
    return true;
  }

  #isSiblings(id: string): boolean {
    const dot = id.lastIndexOf('.');
    const issuer = id.slice(0, id.indexOf('.'));
    if (dot <= 0 || issuer === this.#issuer || this.#ended.has(id)) return false;
    const given = Buffer.from(id.slice(dot + 1));
    const expected = Buffer.from(this.#mac(id.slice(0, dot)));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * A keyed hash of the id's text: SHA-256 over a secret prefix and the inner keyed hash, so the
   * outer hash hides the inner one's state (no length extension). Two one-shot hashes cost about
   * 1 µs where an HMAC object, with its key object, cost over 10.
   */
  #mac(text: string): string {
    return hash('sha256', this.#outer + hash('sha256', this.#inner + text, 'base64url'), 'base64url').slice(0, 22);
  }
}
