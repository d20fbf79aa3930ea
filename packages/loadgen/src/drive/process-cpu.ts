/**
 * A server's CPU as the step driver reads it (`RunStepOptions.serverCpuUs`): what a local
 * process tree has used, from /proc (Linux), so a server's cost per call is measured rather than
 * inferred from a machine the load generator shares.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** Clock ticks per second, asked of getconf once, when first needed: importing the package runs nothing. */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

export interface Proc {
  ppid: number;
  /** utime + stime, and cutime + cstime (what its ended children used), in clock ticks */
  ticks: number;
}

/** Every process of the machine (as this user may see them), by pid. */
export function processes(): Map<number, Proc> {
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
  let used = 0;
  for (const [pid, p] of procs) if (counted(pid)) used += p.ticks;
  return (used * 1e6) / ticksPerSecond();
}

/** The clock ticks of every process under any of `roots` (themselves included), each counted once. */
export function treeTicks(procs: ReadonlyMap<number, Proc>, roots: readonly number[]): number {
  const memo = new Map<number, boolean>();
  const under = (pid: number): boolean => {
    const known = memo.get(pid);
    if (known !== undefined) return known;
    memo.set(pid, false); // a cycle (pid reuse mid-read) ends here
    const parent = procs.get(pid)?.ppid ?? 0;
    const answer = roots.includes(pid) || (parent > 0 && under(parent));
    memo.set(pid, answer);
    return answer;
  };
  let used = 0;
  for (const [pid, p] of procs) if (under(pid)) used += p.ticks;
  return used;
}
