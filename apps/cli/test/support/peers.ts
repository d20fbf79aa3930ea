import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseReady } from '@mcp-db-bench/server';
import { freePort } from '@mcp-db-bench/testing';
import { BIN } from './cli.js';

/** A server process for a test: its MCP endpoint, and how to stop it. */
export interface Peer {
  url: string;
  stop(): Promise<void>;
}

/** Starts `command` and resolves once its output (stdout and stderr) is `ready`; fails with its output otherwise. */
function startProcess(
  args: string[],
  ready: (output: string) => boolean,
  url: string,
  env?: NodeJS.ProcessEnv,
): Promise<Peer> {
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let output = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`no ready line within 30 s from ${args.join(' ')}:\n${output}`));
    }, 30_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready(output)) {
        clearTimeout(timer);
        resolve({ url, stop });
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code}):\n${output}`));
    });
  });
}

/**
 * Our server (the built bin's `serve`) on a free port, read-only, on a seeded database; `sql`:
 * with its sql tool; `workers`: that many HTTP worker processes, ready once all listen.
 */
export async function startOurs(db: string, options: { sql?: boolean; workers?: number } = {}): Promise<Peer> {
  const port = await freePort();
  const env = options.sql ? { MCP_DB_SQL: '1' } : undefined;
  const workers = options.workers ? ['--workers', String(options.workers)] : [];
  // the server's ready line comes once every worker listens
  const ready = (output: string) => parseReady(output) !== undefined;
  return startProcess(
    [BIN, 'serve', '--db', db, '--port', String(port), ...workers],
    ready,
    `http://127.0.0.1:${port}/mcp`,
    env,
  );
}

/** DBHub from npm (`@bytebase/dbhub`, a devDependency) over HTTP on a free port. */
export async function startDbhub(dsn: string): Promise<Peer> {
  const port = await freePort();
  const main = join(
    dirname(createRequire(import.meta.url).resolve('@bytebase/dbhub/package.json')),
    'dist',
    'index.js',
  );
  return startProcess(
    [main, '--transport', 'http', '--port', String(port), '--dsn', dsn],
    (output) => /MCP server endpoint/.test(output),
    `http://127.0.0.1:${port}/mcp`,
  );
}
