/**
 * `run --server-cpus LIST --client-cpus LIST`: the servers the run starts on some cores, the load
 * generator on others (Linux, with taskset), and each server's own CPU read from /proc (the
 * loadgen's `cpuUnder`), so a server's cost per call is measured rather than inferred from a
 * machine it shares.
 */
import { execFileSync } from 'node:child_process';
import { platform } from 'node:os';
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../errors.js';

export interface CpuPinning {
  /** taskset CPU lists: 0, 0,2, 0-3 */
  server?: string;
  client?: string;
}

/** A CPU list as taskset reads it. */
export function parseCpuList(value: string): string {
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(value))
    throw new InvalidArgumentError(`a CPU list looks like 0, 0,2 or 0-3, not ${value}`);
  return value;
}

/** Pinning needs Linux (sched_setaffinity, /proc) and taskset (util-linux): a usage error otherwise. */
export function checkPinning(given: string): void {
  if (platform() !== 'linux')
    throw new UsageError(`${given} pins processes to CPUs with taskset and reads their CPU from /proc: Linux only`);
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new UsageError(`${given} needs taskset (util-linux, e.g. apt-get install util-linux): not found`);
  }
}

/** The command line that runs `command` on `cpus` (taskset execs it: the pid stays the server's). */
export function pinnedCommand(command: string, args: readonly string[], cpus: string | undefined): [string, string[]] {
  return cpus === undefined ? [command, [...args]] : ['taskset', ['-c', cpus, command, ...args]];
}

/** This process, every thread it has already started included, on `cpus`; what it spawns later inherits them. */
export function pinSelf(cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
}
