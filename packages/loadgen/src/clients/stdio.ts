import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type Era, McpCallError, type Protocol } from './client.js';
import { Session } from './mcp-session.js';
import type { Transport } from './transport.js';
import { type ClientInfo, DEFAULT_TIMEOUT_MS, type RpcMessage } from './wire.js';

export interface StdioOptions {
  command: string;
  args?: readonly string[];
  /** extra environment variables, over the parent's */
  env?: Record<string, string>;
  cwd?: string;
  protocol: Protocol;
  clientInfo?: ClientInfo;
  /** per call; 0 = none. Default 30 s. */
  timeoutMs?: number;
}

interface Pending {
  method: string;
  resolve(msg: RpcMessage): void;
  reject(error: McpCallError): void;
  timer: NodeJS.Timeout | undefined;
}

/** Bytes of the child's stderr kept to explain an exit. */
const STDERR_TAIL = 4096;

/**
 * MCP over a child's stdin/stdout: our session over newline-delimited JSON-RPC. The child is
 * spawned by the first open() and killed by close().
 */
export class StdioClient extends Session<string> {
  constructor(options: StdioOptions) {
    super(new StdioTransport(options), options);
  }
}

/** The stdio transport alone, for a caller that builds its own messages (a replay); the child starts on begin(). */
export function createStdioTransport(options: StdioOptions): Transport<unknown> {
  return new StdioTransport(options);
}

/**
 * Responses matched by id. There are no headers on stdio, so the modern era is the `_meta`
 * envelope alone, and a route is just the method (named when a request times out).
 */
class StdioTransport implements Transport<string> {
  readonly unansweredIsLegacy = true;
  readonly #options: StdioOptions;
  readonly #timeoutMs: number;
  #child: ChildProcessWithoutNullStreams | undefined;
  #exited: McpCallError | undefined;
  #stderr = '';
  #buffer = '';
  #pending = new Map<number, Pending>();
  /** the first line on stdout that was not JSON, and whether any JSON-RPC message came: why a command is not MCP */
  #stray: string | undefined;
  #spoke = false;

  constructor(options: StdioOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  begin(): void {
    if (this.#child === undefined) this.#spawn();
  }

  route(_era: Era, method: string): string {
    return method;
  }

  /** Nothing to carry: on stdio the era is in each message's body. */
  negotiated(): void {}

  /** A stdio session is its process, ended only by close(). */
  abandon(): void {}

  request(body: string, id: number, method: string): Promise<RpcMessage> {
    if (this.#exited !== undefined) return Promise.reject(this.#exited);
    if (this.#child === undefined) return Promise.reject(new McpCallError('protocol', 'call open() first'));
    return new Promise<RpcMessage>((resolve, reject) => {
      const timer =
        this.#timeoutMs > 0
          ? setTimeout(() => {
              this.#pending.delete(id);
              reject(
                new McpCallError('timeout', `no answer to ${method} within ${this.#timeoutMs} ms${this.#notMcp()}`),
              );
            }, this.#timeoutMs)
          : undefined;
      this.#pending.set(id, { method, resolve, reject, timer });
      this.#write(`${body}\n`);
    });
  }

  async notify(body: string): Promise<void> {
    this.#write(`${body}\n`);
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exited !== undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Closing stdin is the MCP stdio shutdown; SIGTERM, then SIGKILL, for a server that lingers.
    child.stdin.end();
    const term = setTimeout(() => child.kill('SIGTERM'), 2_000);
    const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(term);
    clearTimeout(kill);
  }

  #spawn(): void {
    const { command, args = [], env, cwd } = this.#options;
    const child = spawn(command, args, {
      env: env ? { ...process.env, ...env } : process.env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL);
    });
    // A write racing the child's exit fails with EPIPE; the exit handler reports it.
    child.stdin.on('error', () => {});
    child.on('error', (error) =>
      this.#fail(
        new McpCallError(
          'network',
          `cannot run ${command}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'command not found' : error.message}`,
          { cause: error },
        ),
      ),
    );
    child.on('exit', (code, signal) => {
      const how = signal ? `signal ${signal}` : `code ${code}`;
      const tail = this.#stderr.trim();
      const before = [...this.#pending.values()][0]?.method;
      this.#fail(
        new McpCallError(
          'network',
          // its own words when it has any; else what it did instead of MCP
          `${command} exited with ${how}${before && !this.#spoke ? ` before answering ${before}` : ''}${tail ? `: ${tail}` : ''}${tail && this.#stray === undefined ? '' : this.#notMcp()}`,
        ),
      );
    });
  }

  #fail(error: McpCallError): void {
    this.#exited ??= error;
    for (const pending of this.#pending.values()) {
      if (pending.timer !== undefined) clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
  }

  #onData(chunk: string): void {
    let start = 0;
    let nl = chunk.indexOf('\n');
    if (nl === -1) {
      this.#buffer += chunk;
      return;
    }
    // The common case, one whole message per chunk, skips the buffer entirely.
    let line = this.#buffer === '' ? chunk.slice(0, nl) : this.#buffer + chunk.slice(0, nl);
    this.#buffer = '';
    for (;;) {
      this.#onLine(line);
      start = nl + 1;
      nl = chunk.indexOf('\n', start);
      if (nl === -1) break;
      line = chunk.slice(start, nl);
    }
    if (start < chunk.length) this.#buffer = chunk.slice(start);
  }

  #onLine(line: string): void {
    if (line.trim() === '') return;
    let msg: RpcMessage | undefined;
    try {
      msg = JSON.parse(line) as RpcMessage;
    } catch {}
    if (typeof msg !== 'object' || msg === null || !('method' in msg || 'result' in msg || 'error' in msg)) {
      this.#stray ??= line.trim().slice(0, 80);
      return; // a stray log line on stdout is the server's bug, not a reason to fail calls
    }
    if (msg.method !== undefined) {
      // Our own request coming back (cat, tee): answering it would feed the echo, and fail the call with our own error.
      const ours = typeof msg.id === 'number' ? this.#pending.get(msg.id) : undefined;
      if (ours?.method === msg.method) {
        this.#pending.delete(msg.id as number);
        if (ours.timer !== undefined) clearTimeout(ours.timer);
        ours.reject(
          new McpCallError(
            'protocol',
            `${this.#options.command} sent our ${msg.method} request back unchanged: it echoes its input and does not speak MCP over stdio`,
          ),
        );
        return;
      }
      this.#spoke = true;
      // A request from the server (ping, roots/list...): answer so it is not left waiting.
      if (msg.id !== undefined && msg.id !== null) {
        const reply = msg.method === 'ping' ? { result: {} } : { error: { code: -32601, message: 'Method not found' } };
        this.#write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...reply })}\n`);
      }
      return;
    }
    this.#spoke = true;
    if (typeof msg.id !== 'number') return;
    const pending = this.#pending.get(msg.id);
    if (pending === undefined) return;
    this.#pending.delete(msg.id);
    if (pending.timer !== undefined) clearTimeout(pending.timer);
    pending.resolve(msg);
  }

  /** Why the command seems not to be an MCP server, for a failure before it ever answered; '' once it has. */
  #notMcp(): string {
    if (this.#spoke) return '';
    if (this.#stray !== undefined)
      return `; it printed ${JSON.stringify(this.#stray)} on stdout, which is not JSON-RPC: it does not speak MCP over stdio`;
    return '; it never answered on stdout: does it speak MCP over stdio (JSON-RPC, one message a line)?';
  }

  #write(text: string): void {
    this.#child?.stdin.write(text);
  }
}
