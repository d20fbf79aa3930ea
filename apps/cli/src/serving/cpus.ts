/**
 * `run --server-cpus LIST --client-cpus LIST`: the servers the run starts on some cores, the load
 * generator on others (Linux, with taskset), and each server's own CPU read from /proc, so a
 * server's cost per call is measured rather than inferred from a machine it shares.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();

interface Proc {
  ppid: number;
  /** utime + stime, and cutime + cstime (what its ended children used), in clock ticks */
  ticks: number;
}

function processes(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // the fields after the command name, which may hold spaces and parentheses: state is field 3
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), {
        ppid: Number(f[1]),
        ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
      });
    } catch {
      // it ended while we looked
    }
  }
  return out;
}

/**
 * CPU used so far, µs, by the processes under `root` (with `root` itself when `withRoot`), their
 * ended children included, leaving out the subtrees of `skip`. Our server's workers are its
 * children; a stdio server's processes are the run's own.
 */
export function cpuUnder(root: number, { withRoot = true, skip = [] as readonly number[] } = {}): number {
  const procs = processes();
  const counted = (pid: number): boolean => {
    for (let p = pid; p > 1; p = procs.get(p)?.ppid ?? 0) {
      if (skip.includes(p)) return false;
      if (p === root) return withRoot || pid !== root;
    }
    return false;
  };
  let ticks = 0;
  for (const [pid, p] of procs) if (counted(pid)) ticks += p.ticks;
  return (ticks * 1e6) / TICKS_PER_SECOND;
}
