import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, serversOn } from './support/cli.js';

/**
 * However `run` ends, the server it started ends too and its temporary directory goes: a closed
 * output pipe, SIGHUP, an uncaught error, and a SIGKILL, which runs no handler of its own (the
 * watchdog of serving/interrupt.ts does the work). Real processes; each run has a TMPDIR of its
 * own, so "nothing left" is its directory empty (but for the result file a run given no --out keeps
 * there) and no process naming it.
 */
const RUN = ['run', '--scale', '0.001', '--agents', '1', '--workloads', 'point-read', '--warmup', '100ms'];
// an uncaught exception on demand, in the CLI only (execArgv is not passed to what it spawns)
const THROW_ON_USR2 = `data:text/javascript,process.on('SIGUSR2',()=>{throw new Error('boom')})`;

let tmp = '';
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function start(
  args: readonly string[],
  nodeArgs: readonly string[] = [],
): { child: ChildProcess; stderr: () => string } {
  tmp = mkdtempSync(join(tmpdir(), 'orphans-'));
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...RUN, ...args], {
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  return { child, stderr: () => stderr };
}

async function serverUp(run: { child: ChildProcess; stderr: () => string }): Promise<string> {
  const deadline = Date.now() + 60_000;
  while (!/our MCP server at/.test(run.stderr())) {
    if (run.child.exitCode !== null || Date.now() > deadline) throw new Error(`no server: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const made = readdirSync(tmp);
  expect(made).toHaveLength(1);
  expect(serversOn(join(tmp, made[0]!))).not.toEqual([]);
  return join(tmp, made[0]!);
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | string>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode!);
    else child.once('exit', (code, signal) => resolve(code ?? signal!));
  });

/** What the run left in the temp directory but the result file a run given no --out keeps there, by design. */
const leftInTmp = () => readdirSync(tmp).filter((f) => f !== 'mcp-db-bench-results');

/** Nothing of the run left, within `ms` (the watchdog's SIGTERM grace is 5 s). */
async function nothingLeft(dir: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((serversOn(dir).length > 0 || leftInTmp().length > 0) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(serversOn(dir)).toEqual([]);
  expect(leftInTmp()).toEqual([]);
}

describe('the server and the temporary directory end with the CLI', () => {
  it('when its output pipe closes: exit 141, nothing left', async () => {
    const run = start(['--duration', '2s']);
    run.child.stdout!.destroy(); // the reader went away, as `| head -1` does once it has its line
    const dir = await serverUp(run);
    expect(await exitOf(run.child), run.stderr()).toBe(141);
    await nothingLeft(dir, 0);
  }, 120_000);

  it('under `| head -1` in a shell', async () => {
    tmp = mkdtempSync(join(tmpdir(), 'orphans-'));
    const shell = spawn('bash', ['-c', `"${process.execPath}" "${BIN}" ${RUN.join(' ')} --duration 1s | head -1`], {
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    shell.stdout.on('data', (c: Buffer) => {
      out += c;
    });
    expect(await exitOf(shell)).toBe(0);
    expect(out).toMatch(/^mcp-db-bench \S+ · /);
    await nothingLeft(tmp, 10_000);
  }, 120_000);

  it('on SIGHUP (its terminal closed): exit 129, nothing left', async () => {
    const run = start(['--duration', '60s']);
    const dir = await serverUp(run);
    run.child.kill('SIGHUP');
    expect(await exitOf(run.child), run.stderr()).toBe(129);
    await nothingLeft(dir, 0);
  }, 120_000);

  it('on an uncaught error: exit 1, nothing left', async () => {
    const run = start(['--duration', '60s'], ['--import', THROW_ON_USR2]);
    const dir = await serverUp(run);
    run.child.kill('SIGUSR2');
    expect(await exitOf(run.child)).toBe(1);
    expect(run.stderr()).toContain('boom');
    await nothingLeft(dir, 10_000);
  }, 120_000);

  it('on SIGKILL, which no handler sees: nothing left', async () => {
    const run = start(['--duration', '60s']);
    const dir = await serverUp(run);
    run.child.kill('SIGKILL');
    expect(await exitOf(run.child)).toBe('SIGKILL');
    await nothingLeft(dir, 10_000);
  }, 120_000);
});
