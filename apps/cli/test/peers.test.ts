/**
 * `run --peer`: other MCP servers started by the run on the database it seeds, measured beside
 * ours and stopped with it. DBHub from npm (the devDependency, run with node) always; Faucet where
 * FAUCET_BIN names a faucet binary (CI builds none unless .ci/run does: docs/development.md).
 * Real processes, real SQLite; each run has a TMPDIR of its own, where the peers keep their
 * directories, so "nothing left" is that directory empty and no process naming it or inside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { studyFindings, writeResultFile } from '@mcp-db-bench/report';
import { result } from '@mcp-db-bench/report/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { STUDY, type StudySettings, segmentArgs, segmentState } from '../src/benchmark/study.js';
import { DBHUB_PACKAGE } from '../src/serving/peers/dbhub.js';
import { LAUNCHERS, parsePeer, resolvePeerCommand } from '../src/serving/peers/index.js';
import { BIN, runCli } from './support/cli.js';

const FAUCET_BIN = process.env.FAUCET_BIN;
const haveFaucet = Boolean(FAUCET_BIN && existsSync(FAUCET_BIN));
if (!haveFaucet && /^(true|1)$/i.test(process.env.CI ?? ''))
  throw new Error('CI needs FAUCET_BIN: .ci/run builds Faucet into .tools/faucet');
if (!haveFaucet) console.warn('FAUCET_BIN names no faucet binary: the Faucet cases of run --peer are skipped');

/** DBHub as installed for the tests, run with this node: no registry needed. */
const DBHUB = `${process.execPath} ${join(
  dirname(createRequire(import.meta.url).resolve('@bytebase/dbhub/package.json')),
  'dist',
  'index.js',
)}`;

const cellText = (c: string | { text: string }) => (typeof c === 'string' ? c : c.text);

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-peers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUN = ['run', '--scale', '0.002', '--workloads', 'point-read', '--agents', '1', '--warmup', '100ms'];

/** A TMPDIR of its own for one run of the bin. */
function runDir(): { tmp: string; env: NodeJS.ProcessEnv } {
  const tmp = mkdtempSync(join(dir, 'tmp-'));
  return { tmp, env: { ...process.env, TMPDIR: tmp } };
}

/** Processes whose command line names `path`, or that run inside it (a peer's cwd is its directory there). */
function processesIn(path: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(path) || readlinkSync(`/proc/${pid}/cwd`).startsWith(path))
        found.push(`${pid} ${cmdline.replaceAll('\0', ' ')}`);
    } catch {
      // gone already
    }
  }
  return found;
}

/** What the run leaves in TMPDIR but the result file it keeps on purpose (an interrupted run's too). */
const leftIn = (tmp: string) => readdirSync(tmp).filter((name) => name !== 'mcp-db-bench-results');

/** Nothing of the run left: no process of it, its TMPDIR empty, within `ms` (the watchdog's grace is 5 s). */
async function nothingLeft(tmp: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while ((processesIn(tmp).length > 0 || leftIn(tmp).length > 0) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  expect(processesIn(tmp)).toEqual([]);
  expect(leftIn(tmp)).toEqual([]);
}

const peers = [`dbhub=${DBHUB}`, ...(haveFaucet ? [`faucet=${FAUCET_BIN}`] : [])];
const names = peers.map((p) => p.split('=')[0]!);

describe('run --peer on SQLite', () => {
  it('starts each peer, measures point reads on it beside ours, decomposes its calls and stops it', async () => {
    const { tmp, env } = runDir();
    const out = join(dir, 'peers.json');
    const db = `sqlite:${join(dir, 'shop.db')}`;
    const r = await runCli(
      [...RUN, '--db', db, ...peers.flatMap((p) => ['--peer', p]), '--duration', '500ms', '--out', out],
      { cwd: dir, env, timeoutMs: 240_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const result: ResultFile = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    const labels = ['sqlite 2025 session', ...names.map((n) => `${n} sqlite 2025 session`)];
    expect(result.config.targets.map((t) => t.label)).toEqual(labels);
    for (const name of names) {
      const entry = result.config.targets.find((t) => t.peer?.name === name)!;
      // the database's own URL and facts: the peer served the run's database
      expect(entry).toMatchObject({ engine: 'sqlite', url: db, profile: name });
      expect(entry.database?.scale).toBe(0.002);
      expect(r.stderr).toMatch(new RegExp(`sqlite: ${name} at http://127\\.0\\.0\\.1:\\d+/mcp`));
    }
    // sides compared: 5 iterations, each server's point reads measured under both index sets (the peers
    // share the database's re-indexing) without an error in any
    for (const label of labels) {
      for (const indexes of ['baseline', 'optimized']) {
        const steps = result.steps.filter((s) => s.target === label && s.indexes === indexes);
        expect(steps.map((s) => s.iteration)).toEqual([1, 2, 3, 4, 5]);
        for (const s of steps) {
          expect(s.calls).toBeGreaterThan(0);
          expect(s.errors).toEqual({});
        }
      }
    }
    // the servers took turns within each iteration, the order rotated (steps are filed in the plan's order)
    const order = (i: number) =>
      result.steps
        .filter((s) => s.iteration === i && s.indexes === 'optimized')
        .sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0))
        .map((s) => s.target);
    expect(new Set(order(1))).toEqual(new Set(labels));
    expect(order(1)).not.toEqual(order(2));
    // the same statement through the driver against the peer's call: MCP ping as its floor
    for (const name of names) {
      const d = result.decomposition.filter((x) => x.target === `${name} sqlite 2025 session`);
      expect(d.map((x) => x.operation)).toEqual(['get orders by id', 'query order_items by order_id']);
      expect(d.every((x) => x.floor === 'ping' && x.rounds?.length === 5 && x.full.count === 500)).toBe(true);
    }
    expect(result.decomposition.find((x) => x.target === 'sqlite 2025 session')?.floor).toBeUndefined();
    expect(result.agreement?.every((a) => a.mismatches === 0)).toBe(true);
    await nothingLeft(tmp, 0);
  }, 240_000);

  it('reports DBHub against ours on the database they share: the summary and the findings', async () => {
    const { tmp, env } = runDir();
    const out = join(dir, 'servers.json');
    const db = `sqlite:${join(dir, 'servers.db')}`;
    const r = await runCli(
      [...RUN, '--db', db, '--peer', `dbhub=${DBHUB}`, '--duration', '300ms', '--iterations', '3', '--out', out],
      { cwd: dir, env, timeoutMs: 240_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    // the terminal pairs servers per database, never as engines
    expect(r.stdout).toMatch(/servers compared on sqlite, dbhub\/ours at 1 agent:\s+point-read \S/);
    expect(r.stdout).not.toMatch(/engines compared/);
    const file: ResultFile = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    const found = studyFindings([file]);
    const cells = (id: string) => found.find((f) => f.id === id)!.rows.map((row) => row.map(cellText));
    const servers = cells('servers');
    expect(servers.map((row) => row.slice(0, 3))).toEqual([['sqlite', 'point-read', '1']]);
    // each server's calls/s, and DBHub's over ours as the claims rules read it (a busy machine withholds it)
    const [, , , ours, dbhub, ratio] = servers[0]!;
    expect(ours).toMatch(/^[\d,.]+$/);
    expect(dbhub).toMatch(/^[\d,.]+$/);
    expect(ratio).toMatch(/^(\d+\.\d+x \[|no difference \(|~ \(|withheld \()/);
    // each server's share of a call, over its own protocol floor (DBHub has no echo tool: MCP ping)
    const share = cells('server-share');
    expect(share.map((row) => row[1])).toEqual(['ours', 'ours', 'dbhub', 'dbhub']);
    for (const row of share) expect(row[6]).toMatch(/^\d+(\.\d)?% \[/);
    expect(share.filter((row) => row[1] === 'dbhub').every((row) => row[5]!.endsWith('(ping)'))).toBe(true);
    // one database: no engine spread to show
    expect(found.map((f) => f.id)).not.toContain('server-spread');
    await nothingLeft(tmp, 0);
  }, 240_000);

  it('stops the peers when the run is interrupted (SIGINT) or killed (SIGKILL: the watchdog)', async () => {
    for (const signal of ['SIGINT', 'SIGKILL'] as const) {
      const { tmp, env } = runDir();
      const child = spawn(
        process.execPath,
        [
          BIN,
          ...RUN,
          '--db',
          `sqlite:${join(dir, 'shop.db')}`,
          ...peers.flatMap((p) => ['--peer', p]),
          '--duration',
          '30s',
        ],
        { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const stderr = await until(child, new RegExp(`sqlite: ${names.at(-1)} at `));
      expect(processesIn(tmp).length, stderr()).toBeGreaterThan(0);
      child.kill(signal);
      expect(await exitOf(child)).toBe(signal === 'SIGINT' ? 130 : 'SIGKILL');
      await nothingLeft(tmp, 15_000);
    }
  }, 240_000);

  it('fails with the peer named, its database and the end of its output when it cannot start', async () => {
    const broken = join(dir, 'broken-peer');
    writeFileSync(broken, '#!/bin/sh\necho "opening the database: permission denied" >&2\nexit 3\n');
    chmodSync(broken, 0o755);
    const db = `sqlite:${join(dir, 'shop.db')}`;
    for (const [peer, why] of [
      [
        `dbhub=${broken}`,
        /dbhub on sqlite:.*shop\.db: exited \(3\) before it answered MCP; its last output:\nopening the database: permission denied/,
      ],
      [
        `faucet=${broken}`,
        /faucet on sqlite:.*shop\.db: .*broken-peer db add failed \(3\); its last output:\nopening the database: permission denied/,
      ],
    ] as const) {
      const { tmp, env } = runDir();
      const r = await runCli([...RUN, '--db', db, '--peer', peer, '--duration', '500ms'], {
        cwd: dir,
        env,
        timeoutMs: 120_000,
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(why);
      await nothingLeft(tmp, 0);
    }
  }, 240_000);

  it('refuses what it cannot do before starting anything', async () => {
    const usage = async (args: string[]) => {
      const r = await runCli(['run', ...args], { cwd: dir, timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(2);
      return r.stderr;
    };
    expect(await usage(['--peer', 'toolbox'])).toMatch(/no peer toolbox: --peer starts faucet, dbhub/);
    expect(await usage(['--peer', 'faucet=/nowhere/faucet'])).toMatch(
      /--peer faucet=\/nowhere\/faucet: \/nowhere\/faucet is not a file/,
    );
    expect(await usage(['--peer', 'faucet=no-such-faucet-here'])).toMatch(
      /no-such-faucet-here is not a program on PATH, nor an npm package/,
    );
    expect(await usage(['--peer', 'dbhub=', '--db', 'sqlite:x.db'])).toMatch(/--peer dbhub= names no command/);
    expect(await usage(['--peer', `dbhub=${DBHUB}`, '--target', 'http://127.0.0.1:1/mcp'])).toMatch(
      /--peer cannot be used with --target: it starts another server beside ours on each --db database/,
    );
  }, 120_000);
});

describe('the peers’ commands and connections', () => {
  it('reads --peer NAME[=COMMAND]: a path, a program on PATH, or an npm package run with npx', () => {
    expect(parsePeer('dbhub')).toMatchObject({ launcher: LAUNCHERS.dbhub, given: DBHUB_PACKAGE });
    expect(parsePeer('faucet=/opt/faucet --verbose')).toMatchObject({ given: '/opt/faucet --verbose' });
    expect(resolvePeerCommand(`${process.execPath} main.js`)).toEqual([process.execPath, 'main.js']);
    expect(resolvePeerCommand('node main.js')).toEqual(['node', 'main.js']);
    // a relative path names a file where the run was started, not in the peer's own directory
    const here = relative(process.cwd(), process.execPath);
    expect(resolvePeerCommand(`./${here} main.js`)).toEqual([process.execPath, 'main.js']);
    expect(resolvePeerCommand('@bytebase/dbhub@1.4.0 --readonly')).toEqual([
      'npx',
      '--yes',
      '@bytebase/dbhub@1.4.0',
      '--readonly',
    ]);
    expect(resolvePeerCommand('some-server@2.0.1')).toEqual(['npx', '--yes', 'some-server@2.0.1']);
  });

  it('runs DBHub at the version of the workspace catalog', () => {
    const catalog = readFileSync(new URL('../../../pnpm-workspace.yaml', import.meta.url), 'utf8');
    const version = /"@bytebase\/dbhub": (\S+)/.exec(catalog)?.[1];
    expect(DBHUB_PACKAGE).toBe(`@bytebase/dbhub@${version}`);
  });

  it("writes each engine's URL as the peer takes it", () => {
    const at = (name: string, url: string, family: 'sqlite' | 'postgres' | 'mysql' | 'mssql') =>
      LAUNCHERS[name]!.launch({ url, family }, 7000, '/d');
    expect(at('dbhub', 'sqlite:/data/shop.db', 'sqlite')).toMatchObject({
      args: ['--transport', 'http', '--host', '127.0.0.1', '--port', '7000', '--dsn', 'sqlite:///data/shop.db'],
      options: { engine: 'sqlite' },
    });
    expect(at('dbhub', 'postgres://u:p@h:5432/db', 'postgres')).toMatchObject({
      args: expect.arrayContaining(['postgres://u:p@h:5432/db?sslmode=disable']),
    });
    expect(at('dbhub', 'mariadb://u:p@h:3306/db', 'mysql')).toMatchObject({
      args: expect.arrayContaining(['mariadb://u:p@h:3306/db']),
    });
    expect(at('dbhub', 'sqlite::memory:', 'sqlite')).toBe('dbhub cannot open our in-memory SQLite database');
    expect(at('dbhub', 'mssql://u:p@h/db', 'mssql')).toBe('dbhub is not set up here for mssql databases');
    expect(at('faucet', 'postgres://u:p@h:5432/db?sslmode=require', 'postgres')).toMatchObject({
      setup: [
        [
          'db',
          'add',
          '--data-dir',
          '/d',
          '--name',
          'main',
          '--driver',
          'postgres',
          '--dsn',
          'postgres://u:p@h:5432/db?sslmode=require',
        ],
      ],
      args: ['mcp', '--data-dir', '/d', '--transport', 'http', '--port', '7000'],
      options: { service: 'main' },
    });
    expect(at('faucet', 'mysql://b%40x:p%3Aw@127.0.0.1/shop', 'mysql')).toMatchObject({
      setup: [expect.arrayContaining(['mysql', 'b@x:p:w@tcp(127.0.0.1:3306)/shop'])],
    });
    expect(at('faucet', 'sqlite:/data/shop.db', 'sqlite')).toMatchObject({
      setup: [expect.arrayContaining(['sqlite', '/data/shop.db'])],
    });
  });
});

describe('study --peer', () => {
  const settings = (peers: string[]): StudySettings => ({
    dbs: ['sqlite:shop.db'],
    peers,
    scale: 0.002,
    seed: 42,
    out: mkdtempSync(join(dir, 'study-')),
    durationMs: 200,
    warmupMs: 100,
    iterations: 2,
  });

  it("adds the peers to every segment's run, and refuses to resume a study of other peers", () => {
    const s = settings(['faucet=/opt/faucet', 'dbhub']);
    const segment = STUDY.segments.find((x) => x.name === 'point-read')!;
    const args = segmentArgs(segment, s);
    const at = args.indexOf('--peer');
    expect(args.slice(at, at + 4)).toEqual(['--peer', 'faucet=/opt/faucet', '--peer', 'dbhub']);
    // a segment's file as run --peer writes it: ours, then each peer on the same database
    const base = result([]);
    const target = (label: string, peer?: { name: string; command: string }) => ({
      label,
      engine: 'sqlite',
      url: 'sqlite:shop.db',
      ...(peer && { profile: peer.name, peer }),
    });
    writeResultFile(
      join(s.out, `${segment.name}.json`),
      result([], {
        config: {
          ...base.config,
          scale: s.scale,
          seed: s.seed,
          iterations: s.iterations,
          durationMs: s.durationMs,
          agents: [...segment.agents],
          targets: [
            target('sqlite 2025 session'),
            target('faucet sqlite 2025 session', { name: 'faucet', command: '/opt/faucet' }),
            target('dbhub sqlite 2025 session', { name: 'dbhub', command: DBHUB_PACKAGE }),
          ],
        },
      }),
    );
    expect(segmentState(segment, s).state).toBe('done');
    for (const [peers, why] of [
      [['dbhub'], 'peers faucet=/opt/faucet, dbhub=@bytebase/dbhub@'],
      [['faucet=/elsewhere/faucet', 'dbhub'], 'peers faucet=/opt/faucet'],
      [[], 'peers faucet=/opt/faucet'],
    ] as const) {
      const state = segmentState(segment, { ...s, peers: [...peers] });
      expect(state.state).toBe('other');
      expect(state.state === 'other' && state.why).toContain(why);
    }
    // a file of other agent counts (an earlier design's) is another study's too
    const file = join(s.out, `${segment.name}.json`);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...written, config: { ...written.config, agents: [1] } }));
    const state = segmentState(segment, s);
    expect(state.state === 'other' && state.why).toBe('agents 1');
  });
});

function until(child: ChildProcess, line: RegExp): Promise<() => string> {
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c;
  });
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (line.test(stderr)) {
        clearInterval(timer);
        resolve(() => stderr);
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`exited before ${line}: ${stderr}`));
      }
    }, 50);
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | string>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode!);
    else child.once('exit', (code, signal) => resolve(code ?? signal!));
  });
