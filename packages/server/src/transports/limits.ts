import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_STATEMENT_TIMEOUT_MS } from '../context.js';
import { readBody } from './body.js';

/**
 * What one HTTP server process lets its clients hold, whatever they send: connections, bytes of
 * request bodies in flight, and time spent waiting on a slow sender. Every refusal names the
 * option that sets its limit.
 */
export interface TransportLimits {
  /** most open connections; the next ones are answered 503 and closed */
  maxConnections: number;
  /** most bytes held at once for request bodies being read and batch answers being gathered */
  maxBufferedBytes: number;
  /** longest pause between two pieces of a request body, in ms (408 after it) */
  bodyTimeoutMs: number;
  /** the request line and headers must arrive within this, in ms */
  headersTimeoutMs: number;
  /** the whole request (headers and body) must arrive within this, in ms; 0: no limit */
  requestTimeoutMs: number;
  /** most messages in one JSON-RPC batch */
  maxBatch: number;
  /** most bytes of the answers to one batch */
  maxBatchBytes: number;
  /** a batch's answers must be ready within this, in ms (the statement timeout); 0: no limit */
  batchTimeoutMs: number;
}

export const DEFAULT_TRANSPORT_LIMITS: TransportLimits = {
  maxConnections: 4096,
  maxBufferedBytes: 64 * 1024 * 1024,
  bodyTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  maxBatch: 20,
  maxBatchBytes: 4 * 1024 * 1024,
  batchTimeoutMs: DEFAULT_STATEMENT_TIMEOUT_MS,
};

/** A JSON-RPC error body, in the SDK's key order. */
export function rpcError(code: number, message: string, id: unknown = null) {
  return { jsonrpc: '2.0', error: { code, message }, id };
}

/**
 * Node's own timeouts for the request line, headers and whole request. Node checks them on an
 * interval (30 s by default, which let a slowloris connection live ~90 s under the 60 s default),
 * so the interval follows the shorter timeout.
 */
export function serverTimeouts(limits: TransportLimits): ServerOptions {
  const shortest = limits.requestTimeoutMs
    ? Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs)
    : limits.headersTimeoutMs;
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(shortest / 4))),
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
  503: 'Service Unavailable',
};

/** A whole HTTP/1.1 response, for a socket that has no ServerResponse (or whose parser gave up). */
function rawAnswer(status: number, message: string, extra = ''): string {
  const body = JSON.stringify(rpcError(-32000, message));
  return `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** How long a refused connection may stay to read its 503 before it is cut. */
const REFUSED_GRACE_MS = 2_000;

/**
 * Counts open connections and answers those past `maxConnections` with a 503 at once (a client
 * sees why, where Node's own `server.maxConnections` just closes the socket). Node's HTTP parser
 * still reads a refused connection; a request on it reaches the handler with the socket's writing
 * side ended, and `refused` tells the handler to drop it.
 */
export function guardConnections(server: Server, limits: TransportLimits): void {
  let open = 0;
  const refusal = rawAnswer(
    503,
    `Service Unavailable: the server holds its limit of ${limits.maxConnections} open connections (--max-connections); retry later`,
    'Retry-After: 1\r\n',
  );
  // Prepended: it runs before Node's own listener attaches the HTTP parser.
  server.prependListener('connection', (socket: Socket) => {
    if (open >= limits.maxConnections) {
      socket.end(refusal);
      socket.setTimeout(REFUSED_GRACE_MS, () => socket.destroy());
      return;
    }
    open++;
    socket.once('close', () => open--);
  });
  // Node answers its own timeouts and parse errors with a bare status; the timeouts say which limit.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Node's own field: the response of the request being read, once its headers came.
    const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (socket.writable && !response?.headersSent)
      socket.write(clientErrorAnswer(error.code, response !== undefined, limits));
    socket.destroy(error);
  });
}

/** Whether a request came on a connection refused by {@link guardConnections} (nobody can read an answer). */
export function refused(req: IncomingMessage): boolean {
  return req.socket.writableEnded;
}

/** Node's answers to a client error (see `socketOnError` in Node's _http_server.js), with timeouts explained. */
function clientErrorAnswer(code: string | undefined, headersCame: boolean, limits: TransportLimits): string {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // The headers timeout is the shorter: one whose headers have not all come has run out of it.
      return rawAnswer(
        408,
        headersCame
          ? `Request Timeout: the request took longer than ${limits.requestTimeoutMs} ms to arrive (--request-timeout)`
          : `Request Timeout: the request line and headers took longer than ${limits.headersTimeoutMs} ms to arrive (--headers-timeout)`,
      );
    case 'HPE_HEADER_OVERFLOW':
      return rawAnswer(431, 'Request Header Fields Too Large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rawAnswer(413, 'Payload Too Large: chunk extensions too large');
    default:
      return rawAnswer(400, 'Bad Request');
  }
}

/** Bodies up to this size are small: they may use the part of the budget kept from large ones. */
export const SMALL_BODY_BYTES = 64 * 1024;

/**
 * Bytes held for requests in flight, against one limit for the process. A body's bytes are
 * counted once, as they arrive, and released when its response ends: the copies the SDK makes
 * when it re-reads a body (body.ts `replay`) live no longer than that. Large bodies (and batch
 * answers) may fill three quarters of it: the rest is kept for small ones, so that a few large
 * bodies sent slowly on purpose cannot keep ordinary calls (a few hundred bytes each) out.
 */
export class Budget {
  #held = 0;
  /** what large bodies may hold together */
  readonly largeLimit: number;
  constructor(readonly limit: number) {
    this.largeLimit = limit - Math.floor(limit / 4);
  }

  /** Takes `bytes` more for a body (or answer) that is then `size` bytes, if they fit. */
  take(bytes: number, size: number): boolean {
    if (this.#held + bytes > (size > SMALL_BODY_BYTES ? this.largeLimit : this.limit)) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held -= bytes;
  }

  get held(): number {
    return this.#held;
  }
}

interface Reading {
  /** the sweep count when its last piece arrived */
  seen: number;
  expire(): void;
}

/** Reads request bodies under the shared {@link Budget} and the body timeout. */
export interface Intake {
  readonly budget: Budget;
  /**
   * Reads the body of `req` as `readBody` does, or answers it (503 past the budget, 408 after a
   * pause longer than the body timeout) and never calls `done`.
   */
  read(req: IncomingMessage, res: ServerResponse, done: (chunks: Buffer[], complete: boolean) => void): void;
  close(): void;
}

/**
 * The body timeout is measured on progress: a body whose pieces stop arriving for
 * `bodyTimeoutMs` is answered 408, however much of it came (Node's `requestTimeout` bounds only
 * the total). One interval sweeps the bodies being read, so a chunk costs no timer and no clock
 * read; the pause is measured to within a sweep period.
 */
export function bodyIntake(limits: TransportLimits, maxBodyBytes: number, idle?: () => boolean): Intake {
  const budget = new Budget(limits.maxBufferedBytes);
  const reading = new Set<Reading>();
  const period = Math.max(25, Math.min(1_000, Math.floor(limits.bodyTimeoutMs / 4)));
  const patience = Math.ceil(limits.bodyTimeoutMs / period);
  let sweeps = 0;
  const sweeper = setInterval(() => {
    sweeps++;
    for (const r of reading) if (sweeps - r.seen > patience) r.expire();
  }, period).unref();
  const overBudget = `Service Unavailable: request bodies in flight would pass ${limits.maxBufferedBytes} bytes, the server's limit (--max-buffered-bytes); retry later`;
  const stalled = `Request Timeout: no body bytes arrived for ${limits.bodyTimeoutMs} ms (--body-timeout)`;
  const neverFits = (size: number) =>
    `Payload Too Large: a body of ${size} bytes is more than the ${budget.largeLimit} bytes large bodies may hold together (three quarters of --max-buffered-bytes)`;

  const largeBodies = new OnePerTurn(idle);

  const read: Intake['read'] = (req, res, done) => {
    // Checked by the caller: a declared length is at most maxBodyBytes. It is taken whole, up
    // front, so a body that cannot fit is refused before any of it is read.
    const declared = Number(req.headers['content-length']);
    let held = Number.isFinite(declared) ? declared : 0;
    if (held > budget.largeLimit) return refuse(res, 413, neverFits(held));
    if (!budget.take(held, held)) return refuse(res, 503, overBudget);
    let size = 0;
    let over = false;
    const release = () => {
      reading.delete(entry);
      budget.give(held);
      held = 0;
    };
    const entry: Reading = {
      seen: sweeps,
      expire() {
        over = true;
        stop();
        release();
        refuse(res, 408, stalled);
      },
    };
    reading.add(entry);
    res.once('close', release);
    const stop = readBody(
      req,
      maxBodyBytes,
      (chunks, complete) => {
        reading.delete(entry);
        if (size >= LARGE_BODY_BYTES) largeBodies.take(() => done(chunks, complete));
        else done(chunks, complete);
      },
      (bytes) => {
        if (over) return false;
        entry.seen = sweeps;
        size += bytes;
        // Without a declared length (chunked), bytes are taken as they come.
        if (size > held) {
          if (!budget.take(size - held, size)) {
            over = true;
            release();
            refuse(res, size > budget.largeLimit ? 413 : 503, size > budget.largeLimit ? neverFits(size) : overBudget);
            return false;
          }
          held = size;
        }
        return true;
      },
    );
  };

  return { budget, read, close: () => clearInterval(sweeper) };
}

/** A body from this size on waits for its turn (OnePerTurn) before it is parsed. */
export const LARGE_BODY_BYTES = 256 * 1024;

/** The longest a large body waits for the small calls in progress to be answered. */
export const LARGE_BODY_WAIT_MS = 100;

/**
 * Large bodies judged one per turn of the event loop, after the small calls in progress: decoding
 * and parsing a 3.4 MB body holds the loop for about 30 ms, and a small call needs a few turns
 * (its request, its database's answer), so four such bodies finished together held another
 * client's `get` for over 100 ms. A large body waits while `idle()` is false, for at most
 * LARGE_BODY_WAIT_MS (a steady stream of small calls must not starve it); small bodies never wait.
 */
export class OnePerTurn {
  private readonly waiting: { work: () => void; since: number }[] = [];
  private scheduled = false;

  constructor(private readonly idle: () => boolean = () => true) {}

  take(work: () => void): void {
    this.waiting.push({ work, since: performance.now() });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    const first = this.waiting[0]!;
    const due = () => this.idle() || performance.now() - first.since >= LARGE_BODY_WAIT_MS;
    const next = () => {
      this.scheduled = false;
      if (!due()) return this.schedule();
      this.waiting.shift();
      try {
        first.work();
      } finally {
        this.schedule();
      }
    };
    // while small calls wait on I/O, a timer (not setImmediate) lets the loop sleep until it comes
    if (due()) setImmediate(next);
    else setTimeout(next, 1);
  }
}

/** Answers and closes the connection: the rest of the body is not read into memory. */
function refuse(res: ServerResponse, status: 408 | 413 | 503, message: string): void {
  if (res.headersSent) return void res.destroy();
  const headers: Record<string, string> = { 'content-type': 'application/json', connection: 'close' };
  if (status === 503) headers['retry-after'] = '1';
  res.writeHead(status, headers).end(JSON.stringify(rpcError(-32000, message)));
}
