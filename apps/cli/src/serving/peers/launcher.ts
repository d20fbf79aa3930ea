/**
 * How `run --peer NAME[=COMMAND]` starts another MCP server on a database the run serves: each
 * peer is a launcher (a file in this folder and a line in index.ts) that says which command
 * starts it when none is given, and what to add to that command for one database on one port:
 * the peer's own connection string per SQL family, and any setup it needs first.
 */
import type { SqlFamily } from '@mcp-db-bench/engines';
import type { PeerOptions } from '@mcp-db-bench/loadgen';

/** What a launcher adds to the command for one database. */
export interface PeerLaunch {
  /** commands run to completion first, each the command followed by these arguments (Faucet's service) */
  setup: string[][];
  /** the server itself: the command followed by these arguments, serving MCP over HTTP on the port given */
  args: string[];
  /** variables beside this process's own */
  env?: Record<string, string>;
  /** its MCP endpoint's path on the port */
  path: string;
  /** the options its profile is driven with */
  options: PeerOptions;
}

export interface PeerLauncher {
  /** the profile it is driven through (`PEERS` in the load generator) and the name --peer takes */
  name: string;
  /** the command when --peer names none: a program on PATH, or an npm package run with npx */
  command: string;
  /** one line for help: what the command is */
  summary: string;
  /**
   * The peer on one database: its URL, its engine's family, a port and a directory of its own
   * (removed afterwards); a string: why it cannot serve that database.
   */
  launch(db: { url: string; family: SqlFamily }, port: number, dir: string): PeerLaunch | string;
}
