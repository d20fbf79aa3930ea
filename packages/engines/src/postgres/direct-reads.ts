import type { Socket } from 'node:net';
import type { CompiledQuery, QueryResult } from 'kysely';
import type pg from 'pg';
import type { Statements } from '../calls.js';
import type { ShortReads } from '../engine.js';
import { cancelRequest } from './cancel.js';

/**
 * A read waits on the lane at most about this long (the oldest read's time so far, and the
 * others' at the lane's pace): past it, it takes a pooled connection, where it runs beside them.
 */
export const STALL_MS = 5;

/** After the lane failed to connect, reads take pooled connections this long before it is tried again. */
const RECONNECT_MS = 1_000;

/** SQLSTATE of a statement stopped by a cancel request (or by statement_timeout). */
const QUERY_CANCELED = '57014';

/** A read written to the lane and not answered yet. */
interface Read {
  /** its call asked for a cancel: sent once it is the read the backend runs */
  cancelled: boolean;
  /** a cancel request was under way while it waited or ran, so a 57014 may not be its own */
  exposed: boolean;
}

/**
 * One connection in pipeline mode (pg's `pipeline`): each read is written at once, behind the
 * ones still running, with a Sync of its own, so an error fails that read alone. PostgreSQL
 * answers in order, so the oldest read in `#reads` is the one its backend runs.
 */
class Lane {
  readonly #reads: Read[] = [];
  /** its connection failed (or its backend was ended): no read may take it any more */
  lost = false;
  /** when the oldest read became the one running (performance.now()) */
  #headSince = 0;
  /** a moving average of the time between reads ending while the lane is busy, in ms */
  #pace = 0;
  /** cancel requests sent and not yet settled */
  #cancelsUnderWay = 0;
  /** reads written in the turn's corked write so far (0: none open) */
  #batch = 0;
  /** the last corked write held one read: reads come one at a time (one agent) */
  #alone = false;
  readonly #stream: Socket;

  /** `inUse`: told +1 when the lane takes its first read in flight, -1 when it has none left */
  constructor(
    readonly client: pg.Client,
    private readonly inUse: (change: 1 | -1) => void,
  ) {
    this.#stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  }

  /** Whether a read written now would wait past STALL_MS for the ones in flight. */
  stalled(now: number): boolean {
    return this.#reads.length > 0 && now - this.#headSince + this.#reads.length * this.#pace > STALL_MS;
  }

  /** Runs `sql` behind the reads in flight. */
  async run(sql: string, values: unknown[], read: Read): Promise<pg.QueryResult> {
    if (this.#reads.push(read) === 1) {
      this.#headSince = performance.now();
      this.inUse(1);
    }
    read.exposed = this.#cancelsUnderWay > 0;
    // The reads of one turn of the event loop leave in one write at the turn's end (pg writes
    // each message on its own). While reads come one at a time (the last such write held one),
    // a read that finds the lane idle leaves at once: waiting would only delay it by a turn.
    const atOnce = this.#batch === 0 && this.#alone && this.#reads.length === 1;
    if (atOnce) this.#stream.cork();
    else if (this.#batch++ === 0) {
      this.#stream.cork();
      setImmediate(() => {
        this.#alone = this.#batch === 1;
        this.#batch = 0;
        this.#stream.uncork();
      });
    }
    try {
      let answer: Promise<pg.QueryResult>;
      try {
        answer = this.client.query(sql, values);
      } finally {
        if (atOnce) this.#stream.uncork();
      }
      return await answer;
    } catch (error) {
      if (connectionLost(error)) this.lost = true;
      throw error;
    } finally {
      this.#done(read);
    }
  }

  /** Cancels `read` in the database: now if its backend runs it, else once it does. */
  cancel(read: Read): Promise<void> {
    read.cancelled = true;
    return this.#reads[0] === read ? this.#sendCancel() : Promise.resolve();
  }

  #done(read: Read): void {
    const at = this.#reads.indexOf(read);
    this.#reads.splice(at, 1);
    // Only the oldest read ends in turn (a statement pg re-runs unnamed goes to the back).
    if (at !== 0) return;
    const now = performance.now();
    this.#pace += (now - this.#headSince - this.#pace) / 8;
    this.#headSince = now;
    if (this.#reads.length === 0) {
      this.inUse(-1);
      return;
    }
    if (this.#reads[0]!.cancelled) void this.#sendCancel();
  }

  /**
   * A cancel request stops whatever the backend runs when it arrives: the read it was meant for
   * may have ended by then and the next one be hit. Every read in flight until it settles is
   * exposed, and one that fails with 57014 without being cancelled runs again.
   */
  async #sendCancel(): Promise<void> {
    this.#cancelsUnderWay++;
    for (const read of this.#reads) read.exposed = true;
    try {
      await cancelRequest(this.client);
    } finally {
      this.#cancelsUnderWay--;
    }
  }
}

/**
 * An error that ends the session, not only the statement: from the socket (no SQLSTATE), class 08
 * (connection exception) or 57P (the backend shut down or was terminated), or FATAL. The
 * connection closes right after, and a read written to it meanwhile would fail too.
 */
function connectionLost(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57P') || severity === 'FATAL' || severity === 'PANIC';
}

/**
 * A read tool's statement straight on a connection, past kysely's executor: its connection
 * provider and the promises around each statement cost about a third of what pg itself spends on
 * a point read (20 to 25 µs of CPU a call here).
 *
 * Reads share one pipelined connection, the lane (see `Lane`), instead of taking a pooled one
 * each: ten reads in flight cost one write and one read of the socket, not ten of each, and one
 * backend's turn instead of ten. A read runs on a pooled connection instead while the lane has
 * none, or when it would wait there past STALL_MS, so that slow reads run side by side and one
 * holds up only the few reads already written behind it. Nothing the server relies on is skipped: each read is one of
 * `statements` (cancelled when its call's client leaves; told to the observer), and the pooled
 * connections' waits, cancels and names wrap the pool and its clients (connect.ts).
 */
export class PostgresDirectReads implements ShortReads {
  #lane: Lane | undefined;
  #opening = false;
  #retryAt = 0;
  #closed = false;

  /**
   * `open`: a new connection for the lane, its session checked and its statements named as the
   * pool's are; absent: every read takes a pooled connection.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly statements: Statements,
    private readonly open?: () => Promise<pg.Client>,
  ) {
    if (open) void this.#openLane();
  }

  async execute<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const lane = this.#ready();
    if (lane === undefined) return this.#pooled(query);
    this.statements.check();
    const read: Read = { cancelled: false, exposed: false };
    const values = query.parameters as unknown[];
    try {
      const { rows } = await this.statements.run(
        () => lane.cancel(read),
        query.sql,
        () => lane.run(query.sql, values, read),
      );
      return { rows: rows as R[] };
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      // A cancel meant for another read; or the lane was stopped because a read's answer passed its
      // budget (answer-meter.ts), which fails every read in flight on it: each runs again on a
      // pooled connection, where the one too large fails alone.
      const victim = (read.exposed && !read.cancelled && code === QUERY_CANCELED) || code === 'limit_exceeded';
      if (!victim) throw error;
      return this.#pooled(query);
    }
  }

  /** Ends the lane's connection (the pool is ended by its owner). */
  async close(): Promise<void> {
    this.#closed = true;
    const lane = this.#lane;
    this.#lane = undefined;
    await lane?.client.end().catch(() => {});
  }

  async #pooled<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query(query.sql, query.parameters as unknown[]);
      return { rows: rows as R[] };
    } finally {
      client.release();
    }
  }

  /** The lane when a read may take it; opens another (in the background) when it was lost. */
  #ready(): Lane | undefined {
    const lane = this.#lane;
    if (lane?.lost) {
      this.#lane = undefined;
      // already closed by the server, as a rule; ended here in case only our side gave up on it
      lane.client.end().catch(() => {});
    } else if (lane) return lane.stalled(performance.now()) ? undefined : lane;
    if (this.open && !this.#opening && !this.#closed && performance.now() >= this.#retryAt) void this.#openLane();
    return undefined;
  }

  async #openLane(): Promise<void> {
    this.#opening = true;
    try {
      const client = await this.open!();
      if (this.#closed) return void client.end().catch(() => {});
      // a connection in use while it has reads in flight, as a pooled one is while it is handed out
      const lane = new Lane(client, (change) => this.statements.held(change));
      // A connection that is lost fails the reads in flight on it (mapped as a pooled one's are);
      // the next read opens another (see `connectionLost` for the errors that tell it first).
      const drop = () => {
        lane.lost = true;
      };
      client.on('error', drop).on('end', drop);
      this.#lane = lane;
    } catch {
      this.#retryAt = performance.now() + RECONNECT_MS;
    } finally {
      this.#opening = false;
    }
  }
}
