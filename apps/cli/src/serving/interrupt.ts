import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT } from '../errors.js';

/**
 * What a benchmark command started and created, so that however the command ends the server
 * processes (their workers follow them), echo floors and temporary database directories end
 * with it: SIGINT, SIGTERM and SIGHUP and a closed output pipe (EPIPE, as `| head -1` does) are
 * handled here; a SIGKILL or a crash, which run no handler, by the watchdog below.
 */
const children = new Set<ChildProcess>();
/** process groups (a peer server and whatever it spawned), by leader pid: each stopped as a whole */
const groups = new Map<number, () => Promise<void>>();
const dirs = new Set<string>();
let interrupted: string | undefined;

/**
 * The watchdog: a process of its own (its own session, so a terminal's signals do not reach it)
 * that learns each child and directory over a pipe from this process. The kernel closes the
 * pipe when this process ends, however it ends; the watchdog then stops what is left (SIGTERM,
 * SIGKILL 5 s later) and removes what is left. After a clean end nothing is left.
 */
const WATCHDOG = `
const { rmSync } = require('node:fs');
const pids = new Set(), dirs = new Set();
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGPIPE']) process.on(s, () => {});
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let i; (i = buffer.indexOf('\\n')) >= 0; buffer = buffer.slice(i + 1)) {
    const { op, pid, dir } = JSON.parse(buffer.slice(0, i));
    const [set, value] = pid === undefined ? [dirs, dir] : [pids, pid];
    op === 'add' ? set.add(value) : set.delete(value);
  }
});
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const signal = (pid, s) => { try { process.kill(pid, s); } catch {} };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let reaping = false;
async function reap() {
  if (reaping) return;
  reaping = true;
  for (const pid of pids) signal(pid, 'SIGTERM');
  for (let t = 0; t < 100 && [...pids].some(alive); t++) await sleep(50);
  for (const pid of pids) signal(pid, 'SIGKILL');
  for (let t = 0; t < 40 && [...pids].some(alive); t++) await sleep(50);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
process.stdin.on('end', reap);
process.stdin.on('error', reap);
`;
let watchdog: ChildProcess | undefined;

function tell(message: { op: 'add' | 'remove'; pid?: number; dir?: string }): void {
  if (!watchdog) {
    watchdog = spawn(process.execPath, ['-e', WATCHDOG], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    // it must neither keep this process alive nor end it: its pipe and itself are unreferenced
    watchdog.unref();
    (watchdog.stdin as Socket).unref();
    watchdog.stdin!.on('error', () => {});
  }
  watchdog.stdin!.write(`${JSON.stringify(message)}\n`);
}

export function trackChild<T extends ChildProcess>(child: T): T {
  const pid = child.pid;
  if (pid === undefined) return child;
  children.add(child);
  tell({ op: 'add', pid });
  child.once('exit', () => {
    children.delete(child);
    tell({ op: 'remove', pid });
  });
  return child;
}

/**
 * A process group led by `pid` (a child spawned detached), stopped by `stop` on a signal and by
 * the watchdog (the group signalled as a whole) if this process dies; untrack it once it is gone.
 */
export function trackGroup(pid: number, stop: () => Promise<void>): () => void {
  groups.set(pid, stop);
  tell({ op: 'add', pid: -pid });
  return () => {
    groups.delete(pid);
    tell({ op: 'remove', pid: -pid });
  };
}

/** A new directory under the system's temporary directory, removed on an interrupt too. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  tell({ op: 'add', dir });
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
  tell({ op: 'remove', dir });
}

/** What to keep of the work done when a signal ends it (a partial result file), run before the clean-up. */
const savers = new Set<() => void>();

/** Runs `save` if a signal ends the process before the returned function is called. */
export function onInterrupt(save: () => void): () => void {
  savers.add(save);
  return () => savers.delete(save);
}

/** True once a signal arrived: the handler cleans up and exits; nothing else should. */
export const isInterrupted = (): boolean => interrupted !== undefined;

const SIGNALS = { SIGINT: EXIT.sigint, SIGTERM: EXIT.sigterm, SIGHUP: EXIT.sighup } as const;
type Signal = keyof typeof SIGNALS;
let installed = false;

/**
 * From now on SIGINT, SIGTERM and SIGHUP stop what was started, remove what was created, and
 * exit 130, 143 or 129; so does a closed stdout (exit 141, as a SIGPIPE would). A second signal ends at once.
 */
export function cleanUpOnSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of Object.keys(SIGNALS) as Signal[]) {
    process.once(signal, () => void onSignal(signal, SIGNALS[signal]));
  }
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') void onSignal('output closed', EXIT.sigpipe);
    else throw error;
  });
}

async function onSignal(reason: string, code: number): Promise<void> {
  if (interrupted) return;
  interrupted = reason;
  // a second signal of any kind: no more waiting
  for (const s of Object.keys(SIGNALS) as Signal[]) {
    process.removeAllListeners(s);
    process.once(s, () => process.exit(SIGNALS[s]));
  }
  for (const save of savers) {
    try {
      save();
    } catch (error) {
      warn(`\nmcp-db-bench: could not keep the work done: ${(error as Error).message}\n`);
    }
  }
  // a closed pipe with nothing left to stop (the report was the last thing written) ends quietly
  const processes = children.size + groups.size;
  if (reason in SIGNALS || processes + dirs.size > 0)
    warn(
      `\nmcp-db-bench: ${reason in SIGNALS ? 'interrupted' : reason}: stopping ${processes} process(es) and removing ${dirs.size} temporary director${dirs.size === 1 ? 'y' : 'ies'}\n`,
    );
  await Promise.all([...[...children].map(stop), ...[...groups.values()].map((s) => s().catch(() => {}))]);
  for (const dir of [...dirs]) removeTempDir(dir);
  process.exit(code);
}

/** stderr may be gone too (a closed terminal): the clean-up goes on without it. */
function warn(text: string): void {
  try {
    process.stderr.write(text);
  } catch {}
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
