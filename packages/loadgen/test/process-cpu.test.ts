import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { platform } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpuUnder } from '../src/drive/process-cpu.js';

// A child that spends 100 ms of its own CPU, says so, then idles until it is stopped.
const BURN = `
while (process.cpuUsage().user < 100_000) {}
process.stdout.write('burnt\\n');
setInterval(() => {}, 1000);
`;

describe.skipIf(platform() !== 'linux')('cpuUnder: a process tree’s CPU from /proc', () => {
  let child: ChildProcess;
  beforeAll(async () => {
    child = spawn(process.execPath, ['-e', BURN], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(child.stdout!, 'data');
  }, 60_000); // a busy machine gives the child its 100 ms of CPU slowly
  afterAll(() => {
    child.kill();
  });

  it('counts the CPU a process used, in microseconds', () => {
    expect(cpuUnder(child.pid!)).toBeGreaterThanOrEqual(90_000);
  });

  it('counts the children under a process, leaving out a skipped subtree and, when asked, the root', () => {
    // read the smaller side first: anything else under this process only adds to the later reading
    const skipped = cpuUnder(process.pid, { withRoot: false, skip: [child.pid!] });
    const children = cpuUnder(process.pid, { withRoot: false });
    expect(children - skipped).toBeGreaterThanOrEqual(90_000);
    const withRoot = cpuUnder(process.pid);
    // this process has been compiling and running tests: a tick (10 ms) at least
    expect(withRoot - children).toBeGreaterThanOrEqual(10_000);
  });
});
