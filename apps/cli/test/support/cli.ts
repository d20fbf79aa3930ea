import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built `mcp-db-bench` bin, run as a user runs it. */
export const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the bin to its end; `env` replaces the environment when given (default: this one). */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 64 * 2 ** 20 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The processes whose command line names a path: the MCP servers (and their workers) run on a database there. */
export function serversOn(path: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path)) pids.push(Number(pid));
    } catch {
      // gone already
    }
  }
  return pids;
}
