/**
 * How to start the server over HTTP in a process of its own and know when it serves: the one
 * contract between the server and whatever starts it (the CLI, the tests, the bench scripts).
 * Over HTTP the server writes one line to stderr once it accepts calls, every worker included:
 * `mcp-db-server: listening on ENDPOINT`, with ` (N worker processes)` after it under --workers.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built bin beside this module, as `npx @mcp-db-bench/server` runs it. */
export const SERVER_BIN = fileURLToPath(new URL('../bin.js', import.meta.url));

/** The words that start the ready line; the endpoint follows them. */
export const READY_PREFIX = 'listening on';

/** The ready line the server writes (without its `mcp-db-server: ` prefix). */
export function readyLine(endpoint: string, workers?: number): string {
  return `${READY_PREFIX} ${endpoint}${workers === undefined ? '' : ` (${workers} worker processes)`}`;
}

/** The endpoint from a server's stderr so far, once its ready line is there. */
export function parseReady(output: string): string | undefined {
  return new RegExp(`${READY_PREFIX} (https?://\\S+)`).exec(output)?.[1];
}

/** The server exited or stayed silent before its ready line; `stderr` holds what it said. */
export class ServerStartError extends Error {
  override name = 'ServerStartError';
  readonly code = 'server_start';
  constructor(
    /** what happened, without the server's words */
    readonly reason: string,
    readonly stderr: string,
  ) {
    super(stderr.trim() ? `${reason}: ${stderr.trim()}` : reason);
  }
}

export interface ServerProcessOptions {
  /** the bin to run (default: this package's own) */
  bin?: string;
  /** node options before the bin */
  nodeArgs?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** rewrites the command line before it is spawned (e.g. `taskset -c 0 node ...`); the pid must stay the server's */
  wrap?: (command: string, args: string[]) => [string, string[]];
  /** called with the child as soon as it is spawned, before it is ready (so an interrupt can stop it) */
  onSpawn?: (child: ChildProcess) => void;
  /** how long to wait for the ready line (default 30 s) */
  timeoutMs?: number;
}

export interface ServerProcess {
  endpoint: string;
  child: ChildProcess;
  /** everything the server wrote to stderr so far */
  stderr(): string;
  /** SIGTERM, then SIGKILL if it has not exited 10 s later; resolves once it exited */
  stop(): Promise<void>;
}

/**
 * Runs the bin with `args` (which must ask for HTTP: `--http --port 0`) and resolves once it
 * wrote its ready line; rejects with its stderr when it exits or stays silent past the timeout.
 */
export async function startServerProcess(
  args: readonly string[],
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const line = [...(options.nodeArgs ?? []), options.bin ?? SERVER_BIN, ...args];
  const [command, argv] = options.wrap ? options.wrap(process.execPath, line) : [process.execPath, line];
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: options.env ?? process.env });
  options.onSpawn?.(child);
  let stderr = '';
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited()) return resolve();
      // The server exits within 5 s of SIGTERM; one that does not is hung, and no starter should wait on it.
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  const timeoutMs = options.timeoutMs ?? 30_000;
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ServerStartError(`the MCP server did not start within ${timeoutMs / 1000} s`, stderr)),
        timeoutMs,
      );
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk;
        const endpoint = parseReady(stderr);
        if (endpoint) {
          clearTimeout(timer);
          resolve(endpoint);
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new ServerStartError(`the MCP server exited (${code ?? signal}) before it was ready`, stderr));
      });
    });
    return { endpoint, child, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
