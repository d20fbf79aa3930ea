import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { WORKER_NODE_FLAGS } from '@mcp-db-bench/server';
import { pinnedCommand } from './cpus.js';
import { trackChild } from './interrupt.js';

/** Our MCP server's bin, from the installed @mcp-db-bench/server package. */
export function serverBin(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@mcp-db-bench/server/package.json')), 'dist', 'bin.js');
}

export interface ServerProcess {
  endpoint: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts our server over HTTP on a free loopback port, in its own process (so its CPU is not
 * the load generator's), with the echo tool for measuring the protocol floor, and no token; on
 * `cpus` (a taskset list) when given.
 */
export async function startServer(dbUrl: string, extraArgs: readonly string[] = [], cpus?: string): Promise<ServerProcess> {
  // On loopback, for our own clients only: never with the token a user exported for their own servers.
  const { MCP_DB_TOKEN: _, ...env } = process.env;
  // The small young generation of `--workers` processes, for a single process too, so memory is
  // measured alike: left alone V8 grows it to 128 MB.
  const [command, args] = pinnedCommand(process.execPath, [...WORKER_NODE_FLAGS, serverBin(), '--url', dbUrl, '--http', '--port', '0', '--echo', ...extraArgs], cpus);
  const child = trackChild(spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env }));
  let stderr = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the MCP server did not start within 30 s: ${stderr.trim()}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const m = /listening on (\S+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`the MCP server exited: ${stderr.trim().split('\n').at(-1) ?? ''}`));
    });
  });
  return {
    endpoint,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
