/**
 * A peer server on one of the run's databases, in a process group of its own (so whatever its
 * command spawns, npx and the package's node, ends with it): started on a free loopback port,
 * waited for until it answers MCP with the database's tables, and stopped as a whole.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { redactUrl } from '@mcp-db-bench/engines';
import { createClient, PEERS, PeerClient, type PeerOptions } from '@mcp-db-bench/loadgen';
import { redactAll } from '../../errors.js';
import { pinnedCommand } from '../cpus.js';
import type { Database } from '../database.js';
import { trackGroup } from '../interrupt.js';
import type { PeerSpec } from './index.js';

/** A started peer: where it serves MCP, how its profile is driven, its process group's leader. */
export interface PeerProcess {
  endpoint: string;
  options: PeerOptions;
  pid: number;
  stop(): Promise<void>;
}

/** A peer that did not start: the message names it, its database and why, with the end of its output. */
export class PeerStartError extends Error {
  override name = 'PeerStartError';
}

/** Long enough for npx to fetch a package the first time (about a minute here). */
const START_MS = 120_000;
/** A setup command (Faucet's `db add`) ends within this. */
const SETUP_MS = 60_000;
/** Kept of a peer's output for the error: its last lines. */
const TAIL = 4000;

/** Starts the peer `spec` on `db`, in `dir` (its own, removed afterwards), on the CPUs given; throws PeerStartError. */
export async function startPeer(spec: PeerSpec, db: Database, dir: string, cpus?: string): Promise<PeerProcess> {
  const { launcher } = spec;
  const what = `${launcher.name} on ${redactUrl(db.url)}`;
  const port = await freePort();
  const launch = launcher.launch({ url: db.url, family: db.engine.family }, port, dir);
  if (typeof launch === 'string') throw new PeerStartError(`${what}: ${launch}`);
  const env = { ...process.env, ...launch.env };
  const [program, ...args] = spec.command;
  for (const setup of launch.setup) {
    const step = await runToEnd(group(program!, [...args, ...setup], env, dir), SETUP_MS);
    if (step.code !== 0)
      throw new PeerStartError(
        `${what}: ${spec.given} ${setup[0]} ${setup[1] ?? ''} failed (${step.code})${tail(step.output)}`,
      );
  }
  const [command, argv] = pinnedCommand(program!, [...args, ...launch.args], cpus);
  const child = group(command, argv, env, dir);
  if (child.pid === undefined) {
    const why = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new PeerStartError(`${what}: could not start ${spec.given}: ${why.message}`);
  }
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-TAIL);
  });
  child.stdout!.on('data', () => {});
  const stop = stopper(child);
  const untrack = trackGroup(child.pid!, stop);
  const endpoint = `http://127.0.0.1:${port}${launch.path}`;
  try {
    await untilServing(spec, endpoint, launch.options, child);
  } catch (error) {
    await stop();
    untrack();
    throw new PeerStartError(`${what}: ${(error as Error).message}${tail(output)}`);
  }
  return {
    endpoint,
    options: launch.options,
    pid: child.pid!,
    stop: async () => {
      await stop();
      untrack();
    },
  };
}

/** A process leading a group of its own, its output piped. */
function group(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  return spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

const tail = (output: string) => {
  const text = redactAll(output.trim());
  return text ? `; its last output:\n${text.split('\n').slice(-15).join('\n')}` : '';
};

/** Runs a setup command to its end: its exit code and output (or -1 when it failed to start or took too long). */
function runToEnd(child: ChildProcess, ms: number): Promise<{ code: number; output: string }> {
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-TAIL);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signalGroup(child.pid!, 'SIGKILL');
      output += `\n(no end within ${ms / 1000} s)`;
    }, ms);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: error.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

/** Until the peer answers MCP and, through its profile, lists the database's tables; throws why not. */
async function untilServing(spec: PeerSpec, endpoint: string, options: PeerOptions, child: ChildProcess) {
  const profile = PEERS[spec.launcher.name]!;
  const deadline = Date.now() + START_MS;
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited (${code ?? signal}) before it answered MCP`;
  });
  child.once('error', (error) => {
    exited = `could not start ${spec.command[0]}: ${error.message}`;
  });
  for (;;) {
    if (exited) throw new Error(exited);
    const client = new PeerClient(profile, createClient({ kind: 'http', url: endpoint }, LEGACY), options);
    let answered = false;
    try {
      await client.open();
      answered = true;
      await client.listTools();
      const r = await client.callTool('list_tables', {});
      const tables = (r.data as { tables?: unknown[] } | undefined)?.tables;
      if (r.isError || !tables?.length)
        throw new Error(`answers MCP, but lists no table of the database: ${JSON.stringify(r.data).slice(0, 300)}`);
      return;
    } catch (error) {
      if (answered) throw error;
      if (Date.now() > deadline) throw new Error(`did not answer MCP at ${endpoint} within ${START_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      await client.close().catch(() => {});
    }
  }
}

const LEGACY = { client: 'lean', protocol: 'legacy', timeoutMs: 10_000 } as const;

/** Stops the whole group: SIGTERM, SIGKILL after 5 s, and waits until none of it is left. */
function stopper(child: ChildProcess): () => Promise<void> {
  const pid = child.pid!;
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      signalGroup(pid, 'SIGTERM');
      if (!(await gone(pid, 5000))) {
        signalGroup(pid, 'SIGKILL');
        await gone(pid, 2000);
      }
    })();
    return stopping;
  };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {}
}

/** Whether the group has no process left, polled until `ms` passes. */
async function gone(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    try {
      process.kill(-pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** A port free on loopback now (the peer takes it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
