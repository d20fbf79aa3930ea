/**
 * Where a run given no --out keeps its result file, so that `report --full FILE` shows every
 * table, or another format, without measuring again: the OS temp directory, a file per run
 * named by when it began. Nothing is written into the directory the user runs it from.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The directory: `mcp-db-bench-results` in the OS temp directory. */
export const KEPT_DIR = join(tmpdir(), 'mcp-db-bench-results');

/** A new file's path for a run begun at `startedAt` (ISO): `2026-12-06T03-50-18Z.json`, `-2` after it if taken. */
export function keptResultPath(startedAt: string, dir = KEPT_DIR): string {
  mkdirSync(dir, { recursive: true });
  const stamp = startedAt.replace(/\.\d+Z$/, 'Z').replaceAll(':', '-');
  let file = join(dir, `${stamp}.json`);
  for (let n = 2; existsSync(file); n++) file = join(dir, `${stamp}-${n}.json`);
  return file;
}
