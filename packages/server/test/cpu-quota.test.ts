import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuQuota } from '../src/transports/cpu-quota.js';

const SOURCE = fileURLToPath(new URL('../src/transports/cpu-quota.ts', import.meta.url));

/** A /proc and /sys tree as a container sees them: `files` by path from the root. */
function machine(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcp-cpu-quota-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  roots.push(root);
  return root;
}
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const V2_MOUNT = '30 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate\n';
const v1Mount = (root: string, point: string, controllers: string) =>
  `40 31 0:33 ${root} ${point} rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,${controllers}\n`;

describe('cpuQuota', () => {
  it('reads cgroup v2 cpu.max, rounded down to whole CPUs, at least one', () => {
    const root = (max: string) =>
      machine({
        'proc/self/cgroup': '0::/\n',
        'proc/self/mountinfo': V2_MOUNT,
        'sys/fs/cgroup/cpu.max': `${max}\n`,
      });
    expect(cpuQuota(root('250000 100000'))).toBe(2);
    expect(cpuQuota(root('400000 100000'))).toBe(4);
    expect(cpuQuota(root('50000 100000'))).toBe(1);
    expect(cpuQuota(root('max 100000'))).toBeUndefined();
  });

  it('takes the tightest quota from its own cgroup up to the mount (a limit on a parent binds)', () => {
    const root = machine({
      'proc/self/cgroup': '0::/kubepods/pod1/c1\n',
      'proc/self/mountinfo': V2_MOUNT,
      'sys/fs/cgroup/kubepods/pod1/c1/cpu.max': 'max 100000\n',
      'sys/fs/cgroup/kubepods/pod1/cpu.max': '300000 100000\n',
      'sys/fs/cgroup/kubepods/cpu.max': '800000 100000\n',
    });
    expect(cpuQuota(root)).toBe(3);
    writeFileSync(join(root, 'sys/fs/cgroup/kubepods/pod1/c1/cpu.max'), '150000 100000\n');
    expect(cpuQuota(root)).toBe(1);
  });

  it('reads cgroup v1 cpu.cfs_quota_us over cpu.cfs_period_us, as Docker mounts it (the cgroup is the mount root)', () => {
    const root = (quota: string) =>
      machine({
        'proc/self/cgroup': '5:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n',
        'proc/self/mountinfo': v1Mount('/docker/abc', '/sys/fs/cgroup/cpu,cpuacct', 'cpu,cpuacct'),
        'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': `${quota}\n`,
        'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
      });
    expect(cpuQuota(root('200000'))).toBe(2);
    expect(cpuQuota(root('-1'))).toBeUndefined();
  });

  it('reads the v1 hierarchy that holds cpu on a machine that also mounts v2 (hybrid)', () => {
    const root = machine({
      'proc/self/cgroup': '2:cpuacct:/\n1:cpu:/jobs/a\n0::/\n',
      'proc/self/mountinfo': `${v1Mount('/', '/sys/fs/cgroup/cpu', 'cpu')}${v1Mount('/', '/sys/fs/cgroup/cpuacct', 'cpuacct')}31 24 0:27 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n`,
      'sys/fs/cgroup/cpu/jobs/a/cpu.cfs_quota_us': '300000\n',
      'sys/fs/cgroup/cpu/jobs/a/cpu.cfs_period_us': '100000\n',
      'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      'sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
    });
    expect(cpuQuota(root)).toBe(3);
  });

  it('reads a mount point that mountinfo writes with octal escapes (a space as \\040)', () => {
    const root = machine({
      'proc/self/cgroup': '1:cpu:/\n',
      'proc/self/mountinfo': v1Mount('/', '/mnt/cpu\\040quota', 'cpu'),
      'mnt/cpu quota/cpu.cfs_quota_us': '200000\n',
      'mnt/cpu quota/cpu.cfs_period_us': '100000\n',
    });
    expect(cpuQuota(root)).toBe(2);
  });

  it('is undefined where there are no cgroups, or the cgroup lies outside what the mount shows', () => {
    expect(cpuQuota(machine({ 'etc/hostname': 'x\n' }))).toBeUndefined();
    const outside = machine({
      'proc/self/cgroup': '4:cpu,cpuacct:/other\n',
      'proc/self/mountinfo': v1Mount('/docker/abc', '/sys/fs/cgroup/cpu,cpuacct', 'cpu,cpuacct'),
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '100000\n',
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    });
    expect(cpuQuota(outside)).toBeUndefined();
  });
});

/** A v1 `cpu` hierarchy this process may make a cgroup in (Linux, as root), else undefined. */
function writableV1CpuMount(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((l) => / - cgroup cgroup /.test(l) && /[ ,]cpu(,|$)/.test(l.split(' - ')[1]!.split(' ')[2] ?? ''));
  const point = line?.split(' ')[4];
  if (!point) return undefined;
  try {
    const probe = join(point, `mcp-db-bench-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return point;
  } catch {
    return undefined;
  }
}

const cpuMount = writableV1CpuMount();

/** In a real cgroup with a quota, on a machine that lets the test make one (cgroup v1, as root). */
describe.skipIf(cpuMount === undefined)('cpuQuota in a cgroup of this machine', () => {
  it('reads the quota the kernel holds for the process', () => {
    const group = join(cpuMount!, `mcp-db-bench-test-${process.pid}`);
    mkdirSync(group);
    try {
      writeFileSync(join(group, 'cpu.cfs_period_us'), '100000');
      writeFileSync(join(group, 'cpu.cfs_quota_us'), '300000');
      // A child moves itself into the cgroup, then reads its own quota (Node.js strips the types).
      const script = `const { cpuQuota } = await import(${JSON.stringify(SOURCE)}); console.log(cpuQuota());`;
      const out = execFileSync(
        'sh',
        ['-c', `echo $$ > "$0/cgroup.procs" && exec "$1" --input-type=module -e "$2"`, group, process.execPath, script],
        { encoding: 'utf8' },
      );
      expect(out.trim()).toBe('3');
    } finally {
      rmdirSync(group);
    }
  });
});
