import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import type { Run } from './render/html/index.js';

/** Result files: what run, floor and soak write, and what report, compare and merge read. */

export function writeResultFile(file: string, result: ResultFile): void {
  writeWhole(file, `${JSON.stringify(result, null, 2)}\n`);
}

/**
 * Writes a file whole or not at all: into a temporary file beside it, then renamed over it. A
 * study rewrites its segment files and findings as it goes; a process killed mid-write would
 * otherwise leave an hour's measurement truncated.
 */
export function writeWhole(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** The files' results with their labels: given ones in order, else the file names, made unique. */
export function readRuns(files: readonly string[], labels: readonly string[] = []): Run[] {
  const taken = new Set<string>();
  return files.map((file, i) => {
    let label = labels[i] ?? basename(file).replace(/\.json$/i, '');
    for (let n = 2; taken.has(label); n++) label = `${labels[i] ?? basename(file).replace(/\.json$/i, '')} (${n})`;
    taken.add(label);
    return { label, result: readResultFile(file), file };
  });
}

/** A result file, or one line naming the file and what is wrong with it. */
export function readResultFile(file: string): ResultFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (error as Error).message;
    throw new Error(`cannot read the result file ${file}: ${why}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${file} is not JSON (${(error as Error).message}): is it a result file written by run, floor or soak --out?`,
    );
  }
  const parsed = resultFile.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `${file} is not an mcp-db-bench result file: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`)
        .join('; ')}`,
    );
  }
  return parsed.data;
}
