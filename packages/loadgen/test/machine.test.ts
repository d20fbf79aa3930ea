import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus, platform } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuSnapshot, findServers, interferenceBetween, localPort, machineProbe } from '../src/drive/machine.js';
import { processes, ticksPerSecond, treeTicks } from '../src/drive/process-cpu.js';
import { runStep } from '../src/drive/run-step.js';

/**
 * The interference measure on this machine, for real: a CPU hog (a busy-looping process) shows
 * as other processes' share while it burns, and the run's own processes are never counted as
 * other. Only robust things are asserted: shares against the hog's own measured CPU, never
 * against a quiet machine (this one is shared).
 */
const BURN = 'const end = Date.now() + 20_000; while (Date.now() < end) {}';
const linux = platform() === 'linux';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid);
    } catch {
      // it ended
    }
  }
});

/** A hog outside this process's tree: started through a shell that exits at once, so init adopts it. */
function orphanHog(): number {
  const pid = Number(
    execFileSync('sh', ['-c', `"${process.execPath}" -e "${BURN}" >/dev/null 2>&1 & echo $!`], { encoding: 'utf8' }),
  );
  started.push(pid);
  return pid;
}

/** A hog that is this process's child: one of the run's own. */
function childHog(): ChildProcess {
  const child = spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' });
  started.push(child.pid!);
  return child;
}

/**
 * Snapshots before and after the hog has burnt `ms` of CPU (however long a busy machine takes to
 * give it that): shares measured over enough clock ticks to compare.
 */
async function whileBurning(hog: number, ms = 300) {
  const a = cpuSnapshot()!;
  const ticks = (ms / 1000) * ticksPerSecond();
  for (let waited = 0; waited < 60_000; waited += 100) {
    await sleep(100);
    if (treeTicks(processes(), [hog]) - treeTicks(a.procs, [hog]) >= ticks) break;
  }
  return { a, b: cpuSnapshot()! };
}

/** The share of the machine a process tree used between two snapshots. */
function shareOf(
  a: NonNullable<ReturnType<typeof cpuSnapshot>>,
  b: NonNullable<ReturnType<typeof cpuSnapshot>>,
  pid: number,
) {
  return (treeTicks(b.procs, [pid]) - treeTicks(a.procs, [pid])) / (b.machine.total - a.machine.total);
}

describe.runIf(linux)("the machine's interference, from /proc", () => {
  it('agrees with the processes: with every process counted as the run’s own, nothing is left to others', async () => {
    const a = cpuSnapshot()!;
    await sleep(1000);
    const b = cpuSnapshot()!;
    // every process descends from init (1) or the kernel's thread parent (2)
    const all = interferenceBetween(a, b, [1, 2]);
    expect(all.capacityMs).toBeGreaterThan(900 * cpus().length * 0.9);
    expect(all.otherCpuShare).toBeLessThanOrEqual(0.05);
  });

  it('shows a CPU hog outside the run as other processes’ share', async () => {
    const hog = orphanHog();
    await sleep(200); // it has started burning
    expect(processes().get(hog)?.ppid).not.toBe(process.pid);
    const { a, b } = await whileBurning(hog);
    const hogShare = shareOf(a, b, hog);
    // a full core burnt is 1/cpus of the machine; a busy machine gives it less, but the 300 ms waited for
    expect(hogShare * (b.machine.total - a.machine.total)).toBeGreaterThanOrEqual(0.28 * ticksPerSecond());
    const seen = interferenceBetween(a, b, [process.pid]);
    expect(seen.otherCpuShare).toBeGreaterThanOrEqual(0.8 * hogShare);
    // counted as the run's own instead, the hog leaves the others' share by what it used
    const owned = interferenceBetween(a, b, [process.pid, hog]);
    expect(seen.otherCpuShare - owned.otherCpuShare).toBeGreaterThanOrEqual(0.8 * hogShare);
    expect(owned.ownCpuShare).toBeGreaterThanOrEqual(0.8 * hogShare);
  });

  it('counts the run’s own children as its own, never as others', async () => {
    const hog = childHog();
    await sleep(200);
    const { a, b } = await whileBurning(hog.pid!);
    const hogShare = shareOf(a, b, hog.pid!);
    expect(hogShare * (b.machine.total - a.machine.total)).toBeGreaterThanOrEqual(0.28 * ticksPerSecond());
    const own = interferenceBetween(a, b, [process.pid]);
    expect(own.ownCpuShare).toBeGreaterThanOrEqual(0.8 * hogShare);
    const asOther = interferenceBetween(a, b, []);
    expect(asOther.otherCpuShare - own.otherCpuShare).toBeGreaterThanOrEqual(0.8 * hogShare);
  });

  it('puts the interference on a step measured beside a hog, and the run’s record on the probe', async () => {
    const probe = machineProbe({ self: process.pid, servers: [] });
    const hog = orphanHog();
    await sleep(200);
    const before = cpuSnapshot()!;
    const step = await runStep({
      agents: 1,
      mode: 'closed',
      warmupMs: 0,
      durationMs: 1500,
      machine: probe.window,
      makeAgent: async () => ({
        next: () => sleep(5).then(() => ({ op: 'nap', ok: true as const })),
        close: async () => {},
      }),
    });
    const after = cpuSnapshot()!;
    expect(step.interference).toBeDefined();
    const hogShare = shareOf(before, after, hog);
    expect(hogShare).toBeGreaterThan(0);
    expect(step.interference!.otherCpuShare).toBeGreaterThanOrEqual(0.7 * hogShare);
    const record = probe.record();
    expect(record.cpus).toBe(cpus().length);
    expect(record.loadAverage.start).toHaveLength(3);
    expect(record.loadAverage.end).toHaveLength(3);
    expect(record.interference).toEqual({
      measured: true,
      own: [{ what: 'load generator and the servers it started', pid: process.pid, found: true }],
    });
  });

  it('finds a server the run names by its listening port, and says why it finds none', async () => {
    const server = spawn(
      process.execPath,
      [
        '-e',
        "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))",
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    started.push(server.pid!);
    const [chunk] = (await once(server.stdout!, 'data')) as [Buffer];
    const port = Number(chunk.toString().trim());
    const [found, nothing, embedded, remote] = findServers([
      { what: 'a database', url: `postgres://u:p@127.0.0.1:${port}/db`, port: 5432 },
      { what: 'no one', url: 'postgres://u:p@localhost:1/db', port: 5432 },
      { what: 'sqlite', url: 'sqlite:/tmp/x.db' },
      { what: 'elsewhere', url: 'postgres://u:p@db.example.com/db', port: 5432 },
    ]);
    expect(found).toEqual({ what: 'a database', pid: server.pid, found: true });
    expect(nothing).toEqual({
      what: 'no one',
      found: false,
      reason: "nothing listens on port 1 of this machine's network (a container?)",
    });
    expect(embedded).toEqual({ what: 'sqlite', found: false, reason: "in our server's process: counted with it" });
    expect(remote!.reason).toBe("on another machine (db.example.com): its CPU is not this machine's");
  });
});

describe('the port a URL reaches on this machine', () => {
  it('takes the engine’s default port, the web ports, and loopback in every spelling', () => {
    expect(localPort('postgres://u@127.0.0.1/db', 5432)).toEqual({ port: 5432 });
    expect(localPort('mysql://u@localhost:3307/db', 3306)).toEqual({ port: 3307 });
    expect(localPort('http://[::1]/mcp')).toEqual({ port: 80 });
    expect(localPort('postgres:///db?host=/var/run/postgresql', 5432)).toEqual({
      reason: 'reached through a Unix socket: its server was not looked for',
    });
  });
});
