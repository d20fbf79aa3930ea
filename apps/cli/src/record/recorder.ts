import { shapeOf, TRACE_VERSION, type TraceLine, type TraceValues } from '@mcp-db-bench/contract';

/** One JSON-RPC message as the recorder reads it; anything else in a body is ignored. */
interface Message {
  id?: string | number | null;
  method?: string;
  params?: {
    name?: unknown;
    arguments?: unknown;
    protocolVersion?: unknown;
    clientInfo?: { name?: unknown; version?: unknown };
  };
  result?: { isError?: unknown; structuredContent?: unknown; content?: { type?: string; text?: string }[] };
  error?: { code?: unknown };
}

/** One request and its answer as a transport saw them. */
export interface Exchange {
  /** what names the session: the server's session id, else the host's connection */
  key: string;
  /** the messages of the request body (one, or a batch) */
  sent: readonly unknown[];
  /** the messages of the answer (a JSON body or the events of an SSE stream) */
  received: readonly unknown[];
  startedAt: number;
  endedAt: number;
  bytes: { request: number; response: number };
  /** HTTP only: the answer's status, and the session id it issued (initialize) */
  status?: number;
  issuedSession?: string;
  /** the answer never came (the server unreachable or the stream broken) */
  failed?: boolean;
}

interface Session {
  label: string;
  /** when its last answer ended: the next request's think time starts there */
  lastAnswerAt: number;
}

/** How long work given to `later` may wait (what waits is bounded by what the host can send in that time). */
const LATER_MS = 50;

/**
 * Turns exchanges into trace lines (see the contract's trace.ts), for any transport: sessions
 * labelled in the order they appear, think time per session, each request's method, tool,
 * arguments (kept, shaped or dropped), duration, sizes, rows and error.
 */
export class Recorder {
  readonly #sessions = new Map<string, Session>();
  readonly #t0: number;
  #sessionCount = 0;
  #stopped = false;
  #later: (() => void)[] = [];
  #laterTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: (line: TraceLine) => void,
    private readonly values: TraceValues,
    target: string,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#t0 = now();
    out({ type: 'trace', version: TRACE_VERSION, startedAt: new Date().toISOString(), target, values });
  }

  /** Once stopped, nothing more is written: a socket's close or a request's answer may come after the file ended. */
  private write(line: TraceLine): void {
    if (!this.#stopped) this.out(line);
  }

  /**
   * Runs `work` (reading an exchange's messages and writing its lines) within LATER_MS, in the
   * order given, off the path of the answer. Done in batches, the work costs less CPU than one
   * piece at a time between answers (its code and data stay in the caches), and it never delays
   * an answer. `stop` runs whatever still waits, so the trace is whole.
   */
  later(work: () => void): void {
    if (this.#stopped) return;
    this.#later.push(work);
    this.#laterTimer ??= setTimeout(() => this.#runLater(), LATER_MS);
  }

  #runLater(): void {
    clearTimeout(this.#laterTimer);
    this.#laterTimer = undefined;
    const waiting = this.#later;
    this.#later = [];
    for (const work of waiting) work();
  }

  /** The clock exchanges are timed with. */
  clock(): number {
    return this.now();
  }

  exchange(x: Exchange): void {
    const sent = x.sent.filter(isMessage);
    const init = sent.find((m) => m.method === 'initialize');
    // An initialize opens a session: under the id the server issued, else on the host's connection.
    const key = x.issuedSession !== undefined ? `id:${x.issuedSession}` : x.key;
    const session = init
      ? this.#open(key, init, x.startedAt)
      : (this.#sessions.get(key) ?? this.#open(key, undefined, x.startedAt));
    const answers = new Map(
      x.received
        .filter(isMessage)
        .filter((m) => m.id !== undefined)
        .map((m) => [m.id, m]),
    );
    const shared = sent.length === 1;
    for (const message of sent) {
      if (typeof message.method !== 'string') continue;
      const answer = message.id === undefined ? undefined : answers.get(message.id);
      const line: TraceLine = {
        type: 'request',
        session: session.label,
        at: this.#at(x.startedAt),
        method: message.method,
        thinkMs: round(x.startedAt - session.lastAnswerAt),
        bytes: shared ? x.bytes : { request: json(message), response: answer ? json(answer) : 0 },
      };
      if (message.id !== undefined && message.id !== null) line.durationMs = round(x.endedAt - x.startedAt);
      if (message.method === 'tools/call' && typeof message.params?.name === 'string') {
        line.tool = message.params.name;
        if (this.values !== 'drop')
          line.arguments = this.values === 'keep' ? message.params.arguments : shapeOf(message.params.arguments ?? {});
      }
      const rows = answer ? rowsOf(answer) : undefined;
      if (rows !== undefined) line.rows = rows;
      const error = errorOf(x, message, answer);
      if (error) line.error = error;
      this.write(line);
    }
    session.lastAnswerAt = x.endedAt;
  }

  /** A `GET` the host sent (its server-to-client stream), once its answer ended. */
  stream(x: { key: string; startedAt: number; endedAt: number; status: number; messages: number }): void {
    const session = this.#sessions.get(x.key) ?? this.#open(x.key, undefined, x.startedAt);
    this.write({
      type: 'stream',
      session: session.label,
      at: this.#at(x.startedAt),
      durationMs: round(x.endedAt - x.startedAt),
      status: x.status,
      messages: x.messages,
    });
  }

  /** The host ended the session (DELETE), or its connection closed. */
  end(key: string, at: number): void {
    const session = this.#sessions.get(key);
    if (!session) return;
    this.#sessions.delete(key);
    this.write({ type: 'end', session: session.label, at: this.#at(at) });
  }

  /** The recording stops: what waits is done, every session still open ends now, and nothing is written after. */
  stop(at: number): void {
    this.#runLater();
    for (const key of [...this.#sessions.keys()]) this.end(key, at);
    this.#stopped = true;
  }

  #open(key: string, init: Message | undefined, at: number): Session {
    const session = { label: `s${this.#sessionCount + 1}`, lastAnswerAt: at };
    this.#sessionCount++;
    this.#sessions.set(key, session);
    const info = init?.params?.clientInfo;
    const client =
      typeof info?.name === 'string'
        ? { name: info.name, version: typeof info.version === 'string' ? info.version : '' }
        : null;
    const protocolVersion = typeof init?.params?.protocolVersion === 'string' ? init.params.protocolVersion : null;
    this.write({ type: 'session', session: session.label, at: this.#at(at), protocolVersion, client });
    return session;
  }

  #at(time: number): number {
    return round(time - this.#t0);
  }
}

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
const json = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** The rows a tool's answer holds (a `rows` array, or one `row`), from its structured content or its text's JSON. */
function rowsOf(answer: Message): number | undefined {
  let data: unknown = answer.result?.structuredContent;
  if (data === undefined) {
    const text = answer.result?.content?.find((c) => c.type === 'text')?.text;
    if (text?.[0] !== '{') return undefined;
    try {
      data = JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  const { rows, row } = (data ?? {}) as { rows?: unknown; row?: unknown };
  if (Array.isArray(rows)) return rows.length;
  if (row !== undefined) return row === null ? 0 : 1;
  return undefined;
}

/** The request's failure as the benchmark's error kinds name them; undefined when it succeeded. */
function errorOf(x: Exchange, message: Message, answer: Message | undefined): string | undefined {
  if (x.failed) return 'network';
  if (x.status !== undefined && x.status >= 400) return `http_${x.status}`;
  if (message.id === undefined || message.id === null) return undefined;
  if (!answer) return 'protocol';
  if (answer.error) return `jsonrpc_${String(answer.error.code)}`;
  if (answer.result?.isError !== true) return undefined;
  const text = answer.result.content?.find((c) => c.type === 'text')?.text ?? '';
  try {
    // Ours answers {"error":{"code":...}}; other servers a bare {"code":...}.
    const body = JSON.parse(text) as { code?: unknown; error?: { code?: unknown } };
    const code = body.error?.code ?? body.code;
    return `tool:${typeof code === 'string' ? code : 'error'}`;
  } catch {
    return 'tool:error';
  }
}
