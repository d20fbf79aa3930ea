import { readFileSync } from 'node:fs';

/**
 * Memory of a process and all its descendants (a server's worker processes), in bytes, from
 * /proc (Linux): each process's own resident memory (anonymous and shared-memory pages) plus the
 * file-backed pages (the node binary, libraries) once, since every process maps the same files.
 * Undefined where /proc is not available.
 */
export function treeMemory(pid: number): number | undefined {
  try {
    const all = [pid, ...descendants(pid)].map(residency);
    return all.reduce((sum, r) => sum + r.own, 0) + Math.max(...all.map((r) => r.file));
  } catch {
    return undefined;
  }
}

function residency(pid: number): { own: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { own: kb('RssAnon') + kb('RssShmem'), file: kb('RssFile') };
}

function descendants(pid: number): number[] {
  const direct = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  return direct.flatMap((child) => [child, ...descendants(child)]);
}
