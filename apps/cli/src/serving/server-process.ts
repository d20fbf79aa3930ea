import {
  SERVER_BIN,
  SERVING_NODE_FLAGS,
  type ServerProcess,
  ServerStartError,
  startServerProcess,
} from '@mcp-db-bench/server';
import { pinnedCommand } from './cpus.js';
import { trackChild } from './interrupt.js';

export type { ServerProcess };

/** Our MCP server's bin, from the installed @mcp-db-bench/server package. */
export const serverBin = (): string => SERVER_BIN;

/**
 * Starts our server over HTTP on a free loopback port, in its own process (so its CPU is not
 * the load generator's), with the echo tool for measuring the protocol floor, and no token; on
 * `cpus` (a taskset list) when given.
 */
export async function startServer(
  dbUrl: string,
  extraArgs: readonly string[] = [],
  cpus?: string,
  otel?: Record<string, string>,
): Promise<ServerProcess> {
  // On loopback, for our own clients only: never with the token a user exported for their own servers.
  const { MCP_DB_TOKEN: _, ...inherited } = process.env;
  // `otel` given (run --trace-split): those variables alone, none of a collector the user set up for theirs
  const env = otel
    ? { ...Object.fromEntries(Object.entries(inherited).filter(([name]) => !name.startsWith('OTEL_'))), ...otel }
    : inherited;
  try {
    return await startServerProcess(['--url', dbUrl, '--http', '--port', '0', '--echo', ...extraArgs], {
      // the flags the server would restart itself with, given up front
      nodeArgs: SERVING_NODE_FLAGS,
      env,
      wrap: (command, args) => pinnedCommand(command, args, cpus),
      onSpawn: trackChild,
    });
  } catch (error) {
    // one line for the terminal: the server's last word says why
    if (error instanceof ServerStartError)
      error.message = `${error.reason}: ${error.stderr.trim().split('\n').at(-1) ?? ''}`;
    throw error;
  }
}
