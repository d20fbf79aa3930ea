import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, posix } from 'node:path';

/** A cgroup file system as /proc/self/mountinfo lists it. */
interface CgroupMount {
  /** cgroup2: one hierarchy; cgroup (v1): one per set of controllers */
  v2: boolean;
  /** v1: the controllers it holds (`cpu`, `cpuacct`...) */
  controllers: string[];
  /** the cgroup of the hierarchy that the mount shows at `point` */
  root: string;
  point: string;
}

/**
 * The whole CPUs a CPU quota (CFS bandwidth: cgroup v2's `cpu.max`, v1's `cpu.cfs_quota_us` over
 * `cpu.cfs_period_us`) lets this process use: the tightest on the way from its cgroup up to the
 * mount, rounded down, at least one. Undefined without a quota, or where there are no cgroups
 * (not Linux). `docker run --cpus`, a Kubernetes CPU limit and systemd's CPUQuota= set one.
 *
 * Node.js's `os.availableParallelism()` counts the CPUs a process may run on; recent releases
 * lower that to a v2 quota, none to a v1 quota, and older 22.x releases to neither. `root`: where
 * /proc and /sys are found (tests).
 */
export function cpuQuota(root = '/'): number | undefined {
  const cgroups = readText(join(root, 'proc/self/cgroup'));
  const mountinfo = readText(join(root, 'proc/self/mountinfo'));
  if (cgroups === undefined || mountinfo === undefined) return undefined;
  const mounts = cgroupMounts(mountinfo);
  const memberships = cgroups.split('\n').flatMap((line) => {
    const match = /^\d+:([^:]*):(\/.*)$/.exec(line);
    return match ? [{ controllers: match[1]!.split(','), path: match[2]! }] : [];
  });
  // A v1 hierarchy holding `cpu` governs it even beside a v2 one (hybrid systemd machines).
  const v1 = memberships.find((m) => m.controllers.includes('cpu'));
  const v1Mount = mounts.find((m) => !m.v2 && m.controllers.includes('cpu'));
  if (v1 && v1Mount) return tightest(join(root, v1Mount.point), v1Mount.root, v1.path, v1Quota);
  const v2 = memberships.find((m) => m.controllers.length === 1 && m.controllers[0] === '');
  const v2Mount = mounts.find((m) => m.v2);
  if (v2 && v2Mount) return tightest(join(root, v2Mount.point), v2Mount.root, v2.path, v2Quota);
  return undefined;
}

/** The cgroup mounts in /proc/self/mountinfo (fields: id, parent, device, root, point, options, ..., '-', type, source, super options). */
function cgroupMounts(mountinfo: string): CgroupMount[] {
  return mountinfo.split('\n').flatMap((line) => {
    const [mount, fs] = line.split(' - ');
    if (!mount || !fs) return [];
    const [, , , root, point] = mount.split(' ');
    const [type, , options = ''] = fs.split(' ');
    if (!root || !point || (type !== 'cgroup' && type !== 'cgroup2')) return [];
    return [
      { v2: type === 'cgroup2', controllers: options.split(','), root: mountPath(root), point: mountPath(point) },
    ];
  });
}

/** mountinfo writes a space, tab, newline and backslash in a path as an octal escape. */
function mountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/**
 * The least of `quota` from the cgroup `path`'s directory up to the mount at `point`, which shows
 * the hierarchy from the cgroup `mountRoot` down; as whole CPUs.
 */
function tightest(
  point: string,
  mountRoot: string,
  path: string,
  quota: (dir: string) => number | undefined,
): number | undefined {
  // A cgroup outside what the mount shows cannot be read here.
  const inside = posix.relative(mountRoot, path);
  if (inside.startsWith('..')) return undefined;
  let least: number | undefined;
  for (let dir = inside; ; dir = posix.dirname(dir)) {
    const cpus = quota(join(point, dir));
    if (cpus !== undefined && (least === undefined || cpus < least)) least = cpus;
    if (dir === '' || dir === '.' || dir === '/') break;
  }
  return least === undefined ? undefined : Math.max(1, Math.floor(least));
}

/** `cpu.max`: "max 100000" (none) or "150000 100000" (1.5 CPUs). */
function v2Quota(dir: string): number | undefined {
  const [limit, period] = (readText(join(dir, 'cpu.max')) ?? '').trim().split(/\s+/);
  return ratio(limit, period);
}

/** `cpu.cfs_quota_us` (-1: none) over `cpu.cfs_period_us`. */
function v1Quota(dir: string): number | undefined {
  return ratio(readText(join(dir, 'cpu.cfs_quota_us'))?.trim(), readText(join(dir, 'cpu.cfs_period_us'))?.trim());
}

function ratio(limit: string | undefined, period: string | undefined): number | undefined {
  if (!limit || !period || !/^\d+$/.test(limit) || !/^\d+$/.test(period)) return undefined;
  const p = Number(period);
  return p > 0 ? Number(limit) / p : undefined;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The cores this process may use: those it may run on, fewer under a CPU quota. */
export function availableCores(): number {
  return Math.min(availableParallelism(), cpuQuota() ?? Number.POSITIVE_INFINITY);
}
