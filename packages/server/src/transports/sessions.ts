import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Limits of the 2025-era session table (per server: its `--workers` share one, see Sessions.share). */
export interface SessionLimits {
  /** most sessions one process remembers at once: a bound on memory, never on admission */
  maxSessions: number;
  /** a session unused this long is forgotten (its id then gets 404) */
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { maxSessions: 10_000, idleMs: 30 * 60_000 };

/** What one worker tells its siblings (see {@link Sessions.share}): ids it used or opened, then ids it ended. */
export interface SessionNews {
  used: string[];
  ended: string[];
}

/** How often a worker tells its siblings the sessions it used: the lag of their LRU order behind its own. */
export const SHARE_MS = 100;

/**
 * The `Mcp-Session-Id`s of 2025-era clients. A session holds no server state but its last use:
 * every tool answer depends only on the request (cursors and transactions are explicit handles),
 * so a session exists to be ended (`DELETE`), to expire, and to be refused when unknown (404).
 *
 * `initialize` is never refused. The table is an LRU of at most `maxSessions`: a new session
 * (or a sibling's, first seen here) past the bound pushes out the least recently used one, whose
 * client gets 404 on its next request and initializes again, as the specification asks. Agents
 * that crash or never `DELETE` therefore cost memory up to the bound and lock nobody out; an
 * agent that keeps calling stays at the recent end and is never the one ended.
 *
 * Ids are `<issuer>.<nonce>.<mac>`: the mac (a keyed SHA-256 under a key shared by one server's
 * worker processes, or by separate servers given the same `--session-key`) lets a sibling
 * process honour a session it did not issue, since the cluster or a load balancer hands out
 * connections, not sessions. The issuer is random per process, so siblings on different
 * machines never collide. Only the issuer ends a session by pushing it out: a sibling's id
 * pushed out here is only forgotten, and honoured again if it comes back. An ended session stays
 * ended: our own ids are honoured only while live here; a sibling's id that ended here (DELETE,
 * told by a sibling, idle expiry) is remembered, and when that memory is full the oldest record
 * gives way to a floor on issue time (the nonce carries it, under the mac): sibling ids issued at
 * or before the floor are honoured only while live here.
 *
 * Where someone relays (the `--workers` primary), {@link share} makes the workers' tables one:
 * each tells the others, every {@link SHARE_MS}, the sessions it opened or used and those it
 * ended, and each keeps the ones it hears of at the recent end of its own table. Every worker
 * thus holds the server's sessions in the same LRU order, give or take SHARE_MS, and a session
 * used on any worker is used on all: the one pushed out is the least recently used anywhere.
 */
export class Sessions {
  readonly #limits: SessionLimits;
  /** the key as the two secret prefixes of a nested keyed hash (see #mac) */
  readonly #inner: string;
  readonly #outer: string;
  readonly #issuer: string;
  /** a random start per process: with the counter, ids never repeat (the mac, not the nonce, makes one unguessable) */
  readonly #boot = randomBytes(6).toString('base64url');
  #issued = 0;
  /** id → last use (ms), least recently used first */
  readonly #live = new Map<string, number>();
  /** siblings' ids that ended here, oldest end first (their mac stays valid forever) */
  readonly #ended = new Set<string>();
  /** sibling ids issued at or before this instant (ms) are honoured only while live here */
  #floor = -1;
  readonly #sweeper: NodeJS.Timeout;
  /** what to tell the siblings at the next share (undefined: nobody listens) */
  #news: { used: Set<string>; ended: string[] } | undefined;
  #tell: ((news: SessionNews) => void) | undefined;
  #sharer: NodeJS.Timeout | undefined;

  constructor(
    limits: SessionLimits = DEFAULT_SESSION_LIMITS,
    key: Buffer = randomBytes(32),
    issuer = randomBytes(6).toString('base64url'),
  ) {
    this.#limits = limits;
    this.#inner = `${key.toString('base64')}i`;
    this.#outer = `${key.toString('base64')}o`;
    this.#issuer = issuer;
    this.#sweeper = setInterval(() => this.sweep(Date.now()), Math.min(limits.idleMs, 10_000)).unref();
  }

  get size(): number {
    return this.#live.size;
  }

  /** A new session: always granted, ending the least recently used one when the table is full. */
  open(now = Date.now()): string {
    // The nonce: issue time (base 36 ms, for the floor), then the process's start and a counter.
    const nonce = `${now.toString(36)}-${this.#boot}${(this.#issued++).toString(36)}`;
    const id = `${this.#issuer}.${nonce}.${this.#mac(`${this.#issuer}.${nonce}`)}`;
    this.#admit(id, now);
    this.#news?.used.add(id);
    return id;
  }

  /** Marks a use; false when the id names no live session of this server (answer 404). */
  use(id: string, now = Date.now()): boolean {
    const seen = this.#live.get(id);
    if (seen !== undefined) {
      this.#live.delete(id);
      if (now - seen > this.#limits.idleMs) {
        this.forget(id);
        return false;
      }
      // Re-inserted, so the map stays ordered from least to most recently used.
      this.#live.set(id, now);
      this.#news?.used.add(id);
      return true;
    }
    if (!this.#isSiblings(id)) return false;
    // A sibling's session seen here first: honour it like one of ours.
    this.#admit(id, now);
    this.#news?.used.add(id);
    return true;
  }

  /** Ends a session (DELETE); false when it was not live. Siblings are told. */
  end(id: string, now = Date.now()): boolean {
    if (!this.use(id, now)) return false;
    // Remembered as ended here too: a sibling's id would otherwise be honoured again on its next use.
    this.forget(id);
    // Told at once, as a use is not: the client may come straight back to another worker, or re-use the id on purpose.
    this.#news?.ended.push(id);
    this.#share();
    return true;
  }

  /**
   * Tells `tell`, every {@link SHARE_MS}, the sessions opened or used here since the last time
   * and those ended here (pushed out; a DELETE at once): what {@link heard} takes in another worker.
   */
  share(tell: (news: SessionNews) => void): void {
    this.#news = { used: new Set<string>(), ended: [] };
    this.#tell = tell;
    this.#sharer = setInterval(() => this.#share(), SHARE_MS).unref();
  }

  #share(): void {
    const news = this.#news;
    if (!news || (!news.used.size && !news.ended.length)) return;
    this.#tell?.({ used: [...news.used], ended: news.ended });
    news.used.clear();
    news.ended = [];
  }

  /**
   * What a sibling worker told: the sessions it used move to the recent end here (held again if
   * pushed out here before, as a use here would), then the ones it ended end here. Our own ids
   * are held only while live here: one we pushed out or expired stays ended.
   */
  heard(news: SessionNews, now = Date.now()): void {
    for (const id of news.used) {
      if (this.#live.delete(id)) this.#live.set(id, now);
      else if (this.#isSiblings(id)) this.#admit(id, now);
    }
    for (const id of news.ended) this.forget(id);
  }

  /** This session ended, here or in a sibling. */
  forget(id: string): void {
    this.#live.delete(id);
    // Our own ids need no record: an id we issued and no longer hold is refused anyway.
    if (id.startsWith(`${this.#issuer}.`) || this.#ended.has(id)) return;
    if (this.#ended.size >= this.#limits.maxSessions) {
      const oldest = this.#ended.values().next().value!;
      this.#ended.delete(oldest);
      this.#floor = Math.max(this.#floor, issuedAt(oldest));
    }
    this.#ended.add(id);
  }

  /** Drops expired sessions, from the least recently used end. */
  sweep(now: number): void {
    const { idleMs } = this.#limits;
    for (const [id, seen] of this.#live) {
      if (now - seen <= idleMs) break;
      this.forget(id);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
    clearInterval(this.#sharer);
    this.#live.clear();
    this.#ended.clear();
  }

  /**
   * Holds a session, first pushing out the least recently used one if the table is full (the
   * map's first entry: constant time). One of ours ends (and the siblings are told); a sibling's
   * is only forgotten here: its issuer ends it when it is the least recently used there.
   */
  #admit(id: string, now: number): void {
    if (this.#live.size >= this.#limits.maxSessions) {
      const oldest = this.#live.keys().next().value!;
      this.#live.delete(oldest);
      if (oldest.startsWith(`${this.#issuer}.`)) this.#news?.ended.push(oldest);
    }
    this.#live.set(id, now);
  }

  /** Signed with our key by another issuer, and not ended here. */
  #isSiblings(id: string): boolean {
    const dot = id.lastIndexOf('.');
    const issuer = id.slice(0, id.indexOf('.'));
    if (dot <= 0 || issuer === this.#issuer || this.#ended.has(id)) return false;
    const given = Buffer.from(id.slice(dot + 1));
    const expected = Buffer.from(this.#mac(id.slice(0, dot)));
    // The issue time is read only once the mac vouches for it.
    return given.length === expected.length && timingSafeEqual(given, expected) && issuedAt(id) > this.#floor;
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

/** The issue time (ms) an id's nonce carries; NaN (never above a floor) when it carries none. */
function issuedAt(id: string): number {
  const start = id.indexOf('.') + 1;
  return Number.parseInt(id.slice(start, id.indexOf('-', start)), 36);
}
