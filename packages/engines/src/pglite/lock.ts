import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolError } from '@mcp-db-bench/contract';

const LOCK_FILE = 'mcp-db.lock';

/** Data directories this process has open. */
const open = new Set<string>();

/** How long an open waits for another process to let go of the directory (it may be closing). */
const WAIT_MS = 5_000;

/**
 * PGlite keeps no lock of its own, and two instances writing one data directory corrupt it.
 * Holds the directory for this process (a lock file with its pid; a stale one, whose process
 * is gone, is taken over) and returns the release.
 */
export async function lockDataDir(dir: string): Promise<() => void> {
  if (open.has(dir)) throw inUse(dir, 'this process');
  const file = join(dir, LOCK_FILE);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(file);
    if (holder === undefined) {
      writeFileSync(file, String(process.pid));
      break;
    }
    if (Date.now() > deadline) throw inUse(dir, `process ${holder}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  open.add(dir);
  return () => {
    open.delete(dir);
    rmSync(file, { force: true });
  };
}

function inUse(dir: string, holder: string): ToolError {
  return new ToolError(
    'database_unavailable',
    `the PGlite database ${dir} is already open in ${holder}: PGlite allows one open at a time`,
  );
}

/** The live process holding the lock file, if any. */
function lockHolder(file: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: the process exists but belongs to another user
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}
