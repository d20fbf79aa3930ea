import { type IncomingHttpHeaders, type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Answer } from './admission.js';
import type { BusyPoll } from './busy-poll.js';

/**
 * A plain request read whole from the socket by the front door: the HTTP/1.1 subset an MCP
 * client sends on a keep-alive connection (see {@link readRequest}).
 */
export interface FrontRequest {
  method: 'POST' | 'DELETE';
  url: string;
  /** names lowercased, each at most once */
  headers: IncomingHttpHeaders;
  body: Buffer;
  socket: Socket;
}

/**
 * The whole HTTP response to a front request, or undefined when Node's HTTP server must take the
 * connection from this request on (anything but a plain answer: errors, limits, the SDK).
 */
export type FrontAnswer = (request: FrontRequest) => string | Promise<string> | undefined;

export interface FrontTiming {
  /** a new connection must send a request within this, in ms (Node's headers timeout) */
  headersTimeoutMs: number;
  /** an idle connection is closed after this, in ms (Node's keep-alive timeout) */
  keepAliveMs: number;
  /** turns the loop after answering a client that comes straight back */
  busyPoll: BusyPoll;
}

/** Largest request the front door reads itself; a longer one goes to Node, which streams it. */
export const FRONT_MAX_REQUEST_BYTES = 64 * 1024;

/**
 * Puts a front door before Node's HTTP server: each new connection is read here while its
 * requests are whole, plain and answered by `answer`; at the first that is not (partial, unusual,
 * the SDK's to answer), the connection is handed to Node's own HTTP machinery for good, its unread
 * bytes put back, and every limit and answer of the server applies as if Node had read it from
 * the start. A point read through Node's `IncomingMessage` and `ServerResponse` cost about 65 µs
 * of CPU more than this at one agent.
 *
 * Node's HTTP server reads a connection through its own `connection` listener: emitting
 * `connection` with a socket is the documented way to hand it one. The listeners a server has
 * when it is created are that machinery, whatever they are called: they are taken off here and
 * called on hand-over, so call this right after `createServer`, before any listener of ours is
 * added (one prepended later, such as the connection limit's, still runs first). Changes nothing
 * on a server that has no `connection` listener (Node then reads every request, if anything does).
 */
export function frontDoor(server: Server, answer: FrontAnswer, timing: FrontTiming): void {
  const node = server.listeners('connection') as ((this: Server, socket: Socket) => void)[];
  if (node.length === 0) return;
  server.removeAllListeners('connection');
  const toNode = (socket: Socket) => {
    for (const listener of node) listener.call(server, socket);
  };
  const door: Door = { server, toNode, answer, timing, open: new Map() };
  server.on('connection', (socket: Socket) => {
    // A connection past the limit was answered 503 by the guard: Node drops its requests.
    if (socket.writableEnded) return void door.toNode(socket);
    new FrontConnection(socket, door);
  });
  closeWithServer(server, door.open);
}

/** What every connection read by the front door shares. */
interface Door {
  server: Server;
  /** hands a connection to Node's HTTP server for good */
  toNode: (socket: Socket) => void;
  answer: FrontAnswer;
  timing: FrontTiming;
  /** the connections still read here */
  open: Map<Socket, FrontConnection>;
}

/** Node's close() ends its idle connections through these; the front door's are ended with them. */
function closeWithServer(server: Server, open: ReadonlyMap<Socket, FrontConnection>): void {
  const closeIdle = server.closeIdleConnections.bind(server);
  const closeAll = server.closeAllConnections.bind(server);
  server.closeIdleConnections = () => {
    for (const [socket, connection] of open) if (!connection.busy) socket.destroy();
    closeIdle();
  };
  server.closeAllConnections = () => {
    for (const socket of open.keys()) socket.destroy();
    closeAll();
  };
}

/** One connection, read here until a request that Node's server must take (then handed over). */
class FrontConnection {
  /** whether a call is in flight, or answers wait for the client to read them */
  busy = false;
  private pending: Buffer | undefined;
  /** when the last answer went (none yet: -Infinity) */
  private answeredAt = Number.NEGATIVE_INFINITY;
  /** whether this client's request came promptly after the one before */
  private prompt = false;

  constructor(
    private readonly socket: Socket,
    private readonly door: Door,
  ) {
    door.open.set(socket, this);
    socket.on('data', this.onData).on('end', this.onEnd).on('error', this.onError).on('timeout', this.onTimeout);
    socket.once('close', () => door.open.delete(socket));
    socket.setTimeout(door.timing.headersTimeoutMs);
  }

  private handOver(): void {
    const { socket } = this;
    this.door.open.delete(socket);
    socket.off('data', this.onData).off('end', this.onEnd).off('error', this.onError).off('timeout', this.onTimeout);
    socket.setTimeout(0);
    socket.pause();
    if (this.pending) socket.unshift(this.pending);
    this.door.toNode(socket);
    socket.resume();
  }

  private readonly resume = () => {
    this.busy = false;
    if (this.socket.isPaused()) this.socket.resume();
    this.next();
  };

  /** Answers the whole requests pending, in order, while none is in flight. */
  private next() {
    const { socket, door } = this;
    while (this.pending && !this.busy) {
      // A client that does not read its answers: nothing more is read or answered until they
      // drain, as Node's server does (else its pipelined calls would pile answers up in memory).
      if (socket.writableNeedDrain) {
        this.busy = true;
        socket.once('drain', this.resume);
        return;
      }
      const request = readRequest(this.pending, socket);
      if (request === undefined) return this.handOver();
      const reply = door.answer(request);
      if (reply === undefined) return this.handOver();
      const rest = request.body.byteOffset + request.body.length - this.pending.byteOffset;
      this.pending = rest === this.pending.length ? undefined : this.pending.subarray(rest);
      if (typeof reply === 'string') this.send(reply);
      else {
        this.busy = true;
        socket.setTimeout(0);
        door.timing.busyPoll.started(this.prompt);
        reply
          .then(this.send, () => socket.destroy())
          .finally(() => {
            door.timing.busyPoll.ended();
            this.resume();
          });
      }
    }
  }

  private readonly send = (response: string) => {
    const { socket, door } = this;
    if (socket.writableEnded) return;
    socket.write(response);
    this.answeredAt = performance.now();
    if (this.prompt) door.timing.busyPoll.answered();
    // Node's keep-alive timer, and its second of slack past the advertised timeout.
    socket.setTimeout(door.timing.keepAliveMs + 1_000);
  };

  private readonly onData = (chunk: Buffer) => {
    this.prompt = this.door.timing.busyPoll.prompt(performance.now() - this.answeredAt);
    this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    if (!this.busy) return this.next();
    // A client that pipelines: what it sent behind the call in flight (or behind answers it has
    // not read) waits in the kernel.
    if (this.pending.length > FRONT_MAX_REQUEST_BYTES) this.socket.pause();
  };

  // As Node's server does, no half-open connections: a client that ends its side has left, and
  // the connection's close stops the call it leaves behind (SocketCall).
  private readonly onEnd = () => this.socket.end();
  private readonly onError = () => this.socket.destroy();

  // Before its first request: Node's headers timeout, answered as the server answers it (408);
  // after one: Node's keep-alive timeout, closed quietly.
  private readonly onTimeout = () => {
    if (this.answeredAt > Number.NEGATIVE_INFINITY) return void this.socket.destroy();
    const late = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    if (!this.door.server.emit('clientError', late, this.socket)) this.socket.destroy();
  };
}

const REQUEST_LINE = /^(POST|DELETE) (\/[!#-~]*) HTTP\/1\.1$/;
const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t -~\u00a0-\u00ff]*?)[ \t]*$/;
/** Headers whose presence takes a request out of the plain subset. */
const UNFIT = new Set(['transfer-encoding', 'expect', 'upgrade']);

/**
 * The first request in `bytes` when it is whole and plain: POST or DELETE over HTTP/1.1 with
 * every header well formed and named once, a body of exactly Content-Length bytes (none for
 * DELETE), no Transfer-Encoding, Expect or Upgrade, no `Connection` but keep-alive, and all of
 * it within {@link FRONT_MAX_REQUEST_BYTES}. Undefined for anything else, whole or not: Node's
 * parser judges it.
 */
export function readRequest(bytes: Buffer, socket: Socket): FrontRequest | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1 || end > FRONT_MAX_REQUEST_BYTES) return undefined;
  const head = readHead(bytes.toString('latin1', 0, end));
  if (head === undefined) return undefined;
  const start = end + 4;
  if (start + head.length > FRONT_MAX_REQUEST_BYTES || bytes.length < start + head.length) return undefined;
  return {
    method: head.method,
    url: head.url,
    headers: head.headers,
    body: bytes.subarray(start, start + head.length),
    socket,
  };
}

interface RequestHead {
  method: 'POST' | 'DELETE';
  url: string;
  headers: IncomingHttpHeaders;
  /** of the body */
  length: number;
}

/** Heads read before: a client sends the same few on every call (they differ in Content-Length). */
const heads = new Map<string, RequestHead | null>();

/** The request line and headers of a plain request (see {@link readRequest}), the same object for the same text. */
function readHead(text: string): RequestHead | undefined {
  let head = heads.get(text);
  if (head === undefined) {
    head = parseHead(text) ?? null;
    if (heads.size >= 256) heads.clear();
    heads.set(text, head);
  }
  return head ?? undefined;
}

function parseHead(text: string): RequestHead | undefined {
  const lines = text.split('\r\n');
  const first = REQUEST_LINE.exec(lines[0]!);
  if (!first) return undefined;
  const headers: IncomingHttpHeaders = {};
  for (let i = 1; i < lines.length; i++) {
    const header = HEADER.exec(lines[i]!);
    if (!header) return undefined;
    const name = header[1]!.toLowerCase();
    if (name in headers || UNFIT.has(name)) return undefined;
    headers[name] = header[2];
  }
  const connection = headers.connection;
  if (connection !== undefined && connection.toLowerCase() !== 'keep-alive') return undefined;
  const method = first[1] as 'POST' | 'DELETE';
  const declared = headers['content-length'];
  if (method === 'POST' ? !/^\d{1,6}$/.test(declared ?? '') : declared !== undefined && declared !== '0')
    return undefined;
  const length = declared === undefined ? 0 : Number(declared);
  // Shared by every request with this head: nobody may change it.
  return { method, url: first[2]!, headers: Object.freeze(headers), length };
}

let dateSecond = 0;
let dateText = '';
/** The Date header's value, made once a second as Node makes it. */
function httpDate(): string {
  const now = Date.now();
  if (now - dateSecond >= 1000) {
    dateSecond = now - (now % 1000);
    dateText = new Date(dateSecond).toUTCString();
  }
  return dateText;
}

/** One whole response on a kept-alive connection, the headers as Node writes them for `writeHead`. */
export function frontResponse(answer: Answer, keepAliveMs: number): string {
  let head = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n`;
  const { headers, body } = answer;
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(body)}\r\nDate: ${httpDate()}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n\r\n${body}`;
}
