import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT } from '../errors.js';

/**
 * What a benchmark command started and created, so that Ctrl-C (SIGINT) or SIGTERM can stop
 * and remove it before the process exits: the server processes (their workers follow them) and
 * the temporary database directories.
 */
const children = new Set<ChildProcess>();
const dirs = new Set<string>();
let interrupted: NodeJS.Signals | undefined;

export function trackChild<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** A new directory under the system's temporary directory, removed on an interrupt too. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
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

let installed = false;

/** From now on SIGINT and SIGTERM stop what was started, remove what was created, and exit 130 or 143. A second signal ends at once. */
export function cleanUpOnSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void onSignal(signal));
  }
}

async function onSignal(signal: NodeJS.Signals): Promise<void> {
  interrupted = signal;
  // a second signal of either kind: no more waiting
  for (const s of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(s);
    process.once(s, () => process.exit(s === 'SIGINT' ? EXIT.sigint : EXIT.sigterm));
  }
  for (const save of savers) {
    try {
      save();
    } catch (error) {
      process.stderr.write(`\nmcp-db-bench: could not keep the work done: ${(error as Error).message}\n`);
    }
  }
  process.stderr.write(
    `\nmcp-db-bench: interrupted: stopping ${children.size} process(es) and removing ${dirs.size} temporary director${dirs.size === 1 ? 'y' : 'ies'}\n`,
  );
  await Promise.all([...children].map(stop));
  for (const dir of [...dirs]) removeTempDir(dir);
  process.exit(signal === 'SIGINT' ? EXIT.sigint : EXIT.sigterm);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
