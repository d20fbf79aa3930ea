import { cpus, loadavg, totalmem } from 'node:os';
import type { ResultFile } from '@mcp-db-bench/contract';

/** The machine a result was measured on: part of every result file. */
export function environment(): ResultFile['environment'] {
  const cores = cpus();
  return {
    node: process.versions.node,
    platform: process.platform,
    arch: process.arch,
    cpuModel: cores[0]?.model.trim() ?? 'unknown',
    cpus: cores.length,
    memoryMb: Math.round(totalmem() / 2 ** 20),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
