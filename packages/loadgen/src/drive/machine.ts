/**
 * What else used the machine during a step (Linux, from /proc): the machine's CPU time
 * (/proc/stat) minus this run's own processes (the load generator, the servers it started,
 * the databases it names when they run here), and steal time, as shares of the machine's
 * capacity during the measured window. A step beside a CPU hog, another build or a noisy
 * neighbour on the hypervisor says so in its result (`StepResult.interference`), so a ratio
 * built on it can be withheld (`pairDisturbed` in the contract) instead of printed as a finding.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { cpus, loadavg, networkInterfaces, platform } from 'node:os';
import type { MachineRecord, OwnProcess, StepInterference } from '@mcp-db-bench/contract';
import { type Proc, processes, ticksPerSecond, treeTicks } from './process-cpu.js';

/** The machine's CPU time so far, all CPUs, in clock ticks (/proc/stat's `cpu` line). */
interface MachineTicks {
  /** user + nice + system: what processes ran (guest time is inside user) */
  busy: number;
  steal: number;
  /** every field up to steal: the capacity that passed */
  total: number;
}

export function machineTicks(): MachineTicks | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
    return { busy: user + nice + system, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
  } catch {
    return undefined;
  }
}

/** The machine and every process at one instant. */
export interface CpuSnapshot {
  machine: MachineTicks;
  procs: ReadonlyMap<number, Proc>;
}

export function cpuSnapshot(): CpuSnapshot | undefined {
  const machine = machineTicks();
  return machine && { machine, procs: processes() };
}

/**
 * Interference between two snapshots, the processes under `own` (and their children) counted as
 * the run's: other = the machine's busy time − own time. Interrupt time is left out of both: on a
 * loopback benchmark it is mostly the run's own packets.
 */
export function interferenceBetween(a: CpuSnapshot, b: CpuSnapshot, own: readonly number[]): StepInterference {
  const total = b.machine.total - a.machine.total;
  if (total <= 0) return { otherCpuShare: 0, stealShare: 0, ownCpuShare: 0, capacityMs: 0 };
  const ownTicks = Math.max(0, treeTicks(b.procs, own) - treeTicks(a.procs, own));
  const other = Math.max(0, b.machine.busy - a.machine.busy - ownTicks);
  const share = (ticks: number) => Math.round((ticks / total) * 1e4) / 1e4;
  return {
    otherCpuShare: share(other),
    stealShare: share(b.machine.steal - a.machine.steal),
    ownCpuShare: share(Math.min(ownTicks, total)),
    capacityMs: Math.round((total * 1000) / ticksPerSecond()),
  };
}

/** A measured window: `stop` answers what else used the machine since it opened. */
export interface MachineWindow {
  stop(): StepInterference | undefined;
}

/** Opens measured windows over the run's own processes, and says whose they are. */
export interface MachineProbe {
  /** undefined where the machine cannot be measured (not Linux, no /proc) */
  window(): MachineWindow | undefined;
  /** the run's record: CPUs, load averages (start: when the probe was made; end: now), its own processes */
  record(): MachineRecord;
}

/** What a run counts as its own: its own process tree, and the servers it names by URL (the databases, a --target). */
export interface OwnSpec {
  /** the load generator's process: its children (the servers it started) are counted with it */
  self: number;
  /** servers the run uses by URL: `port` the engine's default when the URL names none; none for an embedded database */
  servers: readonly { what: string; url: string; port?: number }[];
}

export function machineProbe(spec: OwnSpec): MachineProbe {
  const start = loadavg();
  const measurable = platform() === 'linux' && machineTicks() !== undefined;
  const own: OwnProcess[] = [
    { what: 'load generator and the servers it started', pid: spec.self, found: true },
    ...(measurable ? findServers(spec.servers) : []),
  ];
  const roots = own.flatMap((o) => (o.found && o.pid !== undefined ? [o.pid] : []));
  return {
    window() {
      if (!measurable) return undefined;
      const from = cpuSnapshot();
      return {
        stop() {
          const to = cpuSnapshot();
          return from && to ? interferenceBetween(from, to, roots) : undefined;
        },
      };
    },
    record: () => ({
      cpus: cpus().length,
      loadAverage: { start, end: loadavg() },
      interference: measurable
        ? { measured: true, own }
        : {
            measured: false,
            reason:
              platform() === 'linux' ? '/proc/stat could not be read' : `not measured on ${platform()} (Linux only)`,
            own: [],
          },
    }),
  };
}

/** Each server the run names, found as a listening process on this machine, or why not. */
export function findServers(servers: OwnSpec['servers']): OwnProcess[] {
  let sockets: Map<number, number[]> | undefined;
  return servers.map(({ what, url, port }) => {
    const where = localPort(url, port);
    if ('reason' in where) return { what, found: false, reason: where.reason };
    const inodes = listeningInodes(where.port);
    if (!inodes.length)
      return {
        what,
        found: false,
        reason: `nothing listens on port ${where.port} of this machine's network (a container?)`,
      };
    sockets ??= socketOwners();
    const pids = [...new Set(inodes.flatMap((i) => sockets!.get(i) ?? []))];
    const procs = processes();
    // the listener whose parent is not a listener too: a pre-forking server's first process
    const pid = pids.find((p) => !pids.includes(procs.get(p)?.ppid ?? 0)) ?? pids[0];
    if (pid === undefined)
      return {
        what,
        found: false,
        reason: `port ${where.port} listens, but its process could not be read (another user's: run as root to count it)`,
      };
    return { what, pid, found: true };
  });
}

/** The TCP port a URL reaches on this machine, or why it reaches none here. */
export function localPort(url: string, defaultPort?: number): { port: number } | { reason: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { reason: 'its URL could not be read' };
  }
  if (!parsed.hostname) {
    if (defaultPort === undefined) return { reason: "in our server's process: counted with it" };
    return { reason: 'reached through a Unix socket: its server was not looked for' };
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!isLocal(host)) return { reason: `on another machine (${host}): its CPU is not this machine's` };
  const port = parsed.port ? Number(parsed.port) : (WEB_PORTS[parsed.protocol] ?? defaultPort);
  if (port === undefined) return { reason: 'its URL names no port' };
  return { port };
}

/** A URL's `port` is empty for its scheme's default port. */
const WEB_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

function isLocal(host: string): boolean {
  if (host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '0.0.0.0' || host === '::') return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address === host));
}

/** Inodes of the sockets listening on `port` (any address), from /proc/net/tcp and tcp6. */
export function listeningInodes(port: number): number[] {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const out: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local address, state (0A: listening), inode
      if (f[1]?.endsWith(`:${hex}`) && f[3] === '0A') out.push(Number(f[9]));
    }
  }
  return out;
}

/** Every socket inode this user may see, with the processes holding it (/proc/PID/fd/N → socket:[inode]). */
function socketOwners(): Map<number, number[]> {
  const owners = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // another user's, or it ended
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`));
        if (m) owners.set(Number(m[1]), [...(owners.get(Number(m[1])) ?? []), Number(entry)]);
      } catch {
        // closed while we looked
      }
    }
  }
  return owners;
}
