import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@mcp-db-bench/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { docCommands } from './support/doc-commands.js';
import { type Outcome, type PlanEntry, runStatements, shellStatements } from './support/readme-run.js';

// The README's commands, run as a user pastes them after `pnpm install && pnpm build` (which the
// test run has done): through bash, from a directory laid out like the clone (its packages, apps
// and node_modules linked in, `../base` the same build as the base branch of the CI loop), with
// `export PATH="$PWD/node_modules/.bin:$PATH"` applied as the README says. doc-commands.test.ts
// parses every doc's command lines; this runs the README's. The README's fixed ports 7400 and
// 7500 are the only words changed: each becomes a free port, so the test runs beside other servers.

const ROOT = resolve(import.meta.dirname, '../../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const STEP = /× \d+: [\d,.]+ calls\/s/; // a benchmark's first finished step on stderr

/**
 * The lines that cannot run here, each with its reason; the test asserts this list is all that
 * is skipped, so a new README line runs unless it is added here.
 */
const SKIPPED: readonly PlanEntry[] = [
  { match: /^npx mcp-db-bench\b/, mode: { kind: 'skip', reason: 'not on npm yet (the README says so)' } },
  { match: /^pnpm test\b/, mode: { kind: 'skip', reason: 'runs every suite, this one among them' } },
  {
    match: /^(IMAGE=|apply|kubectl)\b/,
    mode: {
      kind: 'skip',
      reason: 'needs a Kubernetes cluster and a pushed image (deploy.test.ts checks the manifests)',
    },
  },
];

describe('the README’s commands, run from a clone', () => {
  // made when the tests run, not when they are listed
  let dir = '';
  let work = '';
  let env: NodeJS.ProcessEnv = {};
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-readme-'));
    work = join(dir, 'clone');
    mkdirSync(join(dir, 'tmp'));
    mkdirSync(work);
    // the sources and builds only: no package.json or node_modules, so a stray `pnpm install` here
    // cannot touch the repository's own (the bins are on PATH, and node resolves from real paths)
    for (const name of ['packages', 'apps']) symlinkSync(join(ROOT, name), join(work, name));
    symlinkSync(ROOT, join(dir, 'base')); // the CI loop's `../base`: the base branch, built
    // a variable of this machine must not decide a line's result (MCP_DB_URL would pick the database)
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^MCP_DB_/.test(name)));
    env = {
      ...clean,
      PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`,
      TMPDIR: join(dir, 'tmp'), // what a stopped script leaves behind goes with the directory
      FORCE_COLOR: '0',
    };
  });
  afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

  // The result files the `report` and `compare` lines read, which the README's users bring (two
  // runs to overlay) or its CI loop makes (ten runs of minutes each, started below but not waited
  // for): one short run of the same command, copied to each name.
  let fixture: string | undefined;
  const results =
    (...names: string[]) =>
    () => {
      if (!fixture) throw new Error('the fixture run failed');
      for (const name of names) copyFileSync(fixture, join(work, name));
    };

  const plan: PlanEntry[] = [
    ...SKIPPED,
    // the first screen: the whole default run, waited for (about 5 min on 2 shared cores: 5 iterations, as it compares)
    { match: /^pnpm install && pnpm start\b/, mode: { kind: 'in-root' } },
    {
      match: /^mcp-db-bench serve |^(npx|pnpm dlx)( --\S+)* @bytebase\/dbhub@|--http\s*(#.*)?$/,
      mode: { kind: 'server' },
    },
    { match: /^node packages\/server\/dist\/bin\.js --url \S+\s*(#.*)?$/, mode: { kind: 'stdio' } },
    {
      match: /^mcp-db-bench run --target /,
      mode: {
        kind: 'started',
        ready: STEP,
        why: '5 iterations of 16 steps of 1 s a target (a comparison) and answer checks: about 3 min',
      },
    },
    {
      // the Faucet binary the reader built (docs/profiles.md says how; .ci/run builds one into FAUCET_BIN)
      match: /^mcp-db-bench run --db \S+ --peer /,
      mode: {
        kind: 'started',
        ready: STEP,
        why: 'three servers, 5 iterations of 16 steps of 1 s each: about 5 min',
      },
      inputs: () => {
        if (!process.env.FAUCET_BIN) throw new Error('FAUCET_BIN names no Faucet binary to copy to ./faucet');
        copyFileSync(process.env.FAUCET_BIN, join(work, 'faucet'));
        chmodSync(join(work, 'faucet'), 0o755);
      },
    },
    {
      match: /^node apps\/cli\/bench\/clients\.mjs /,
      mode: {
        kind: 'started',
        ready: /× \d+ #\d+ \w+: \d+\/s, p50/,
        fail: /failed: |go client skipped/,
        why: '3 clients × 2 agent counts × 2 workloads × 2 rounds of 4 s: about 100 s',
      },
    },
    {
      match: /^for i in /,
      mode: { kind: 'started', ready: STEP, why: 'ten runs of 24 steps of 5 s: about 25 min' },
    },
    {
      match: /^mcp-db-bench report main\.json branch\.json /,
      mode: { kind: 'run' },
      inputs: results('main.json', 'branch.json'),
    },
    {
      match: /^mcp-db-bench compare \$BASE \$NEW /,
      mode: { kind: 'run' },
      inputs: results(...[1, 2, 3, 4, 5].flatMap((i) => [`base-${i}.json`, `new-${i}.json`])),
    },
  ];

  const statements = shellStatements(README);
  let outcomes: Outcome[] = [];

  it('runs each one (a server until its section ends, a long benchmark past its first step)', async () => {
    const made = await runCli(
      [
        'run',
        '--scale',
        '0.002',
        '--workloads',
        'point-read',
        '--agents',
        '1',
        '--duration',
        '300ms',
        '--warmup',
        '100ms',
        '--indexes',
        'optimized',
        '--out',
        join(dir, 'fixture.json'),
      ],
      { cwd: dir, env, timeoutMs: 60_000 },
    );
    if (made.code === 0) fixture = join(dir, 'fixture.json');
    const ports = { 7400: await freePort(), 7500: await freePort() };
    // the server's default port, for the line that names none
    const withPort = { ...env, MCP_DB_PORT: String(ports[7400]) };
    outcomes = await runStatements(statements, {
      root: ROOT,
      work,
      env: withPort,
      plan,
      ports,
      // the default run's 5 iterations of 45 steps, after a build, on shared cores
      timeoutMs: 540_000,
      onStart: (s, how) => console.log(`${new Date().toISOString()} README.md:${s.line} ${how}`),
    });
    const failures = outcomes
      .filter((o) => o.error)
      .map((o) => `README.md:${o.statement.line}: ${o.statement.text}\n  ${o.error}`);
    console.log(outcomes.map((o) => `README.md:${o.statement.line} ${o.how} ${o.seconds ?? 0} s`).join('\n'));
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 1_200_000);

  it('skips only the lines listed, each for its reason', () => {
    // each skipped statement's first words, its comment left out
    const skipped = outcomes
      .filter((o) => o.how.startsWith('skipped'))
      .map((o) =>
        o.statement.text
          .replace(/\s+#.*$/s, '')
          .split(/\s+/)
          .slice(0, 3)
          .join(' '),
      );
    expect(skipped).toEqual([
      'npx mcp-db-bench',
      'pnpm test',
      'IMAGE=registry.example.com/mcp-db-bench:0.1.0',
      'apply() { sed',
      'apply bench-job.yaml',
      'kubectl wait --for=condition=complete',
      'apply merge-job.yaml',
      'kubectl logs job/mcp-db-bench-merge',
    ]);
    // pnpm start, seed, report, the CI loop's three lines, create-shop-db (the host snippets run in host-snippets.test.ts)
    expect(outcomes.filter((o) => o.how === 'run' || o.how === 'in-root').length).toBeGreaterThanOrEqual(7);
  });

  it('misses no command line the docs check parses', () => {
    const lines = new Set(statements.flatMap((s) => Array.from({ length: s.end - s.line + 1 }, (_, i) => s.line + i)));
    const parsed = docCommands('README.md', README, {}).filter((c) => !lines.has(c.line));
    // what is left is in the fences that show a host's configuration (JSON), not a shell
    expect(parsed.map((c) => c.line)).toEqual([]);
  });
});

describe('the runner itself', () => {
  it('fails a broken line, a server that dies and a benchmark that never starts; passes the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-readme-fake-'));
    try {
      const fake = [
        '```sh',
        'mcp-db-bench --version',
        'mcp-db-bench run --agnets 4                # a misspelt flag',
        'X=1',
        'test "$X" = 1 && mcp-db-bench seed --help > /dev/null',
        'mcp-db-bench serve --db sqlite:shop.db --port 7400 --scale 0.002',
        'mcp-db-server --url nosuch:x --http --port 7500',
        'mcp-db-bench run --target http://127.0.0.1:7400/mcp --workloads point-read --agents 1 --duration 300ms --warmup 100ms',
        'mcp-db-bench report missing.json',
        '```',
      ].join('\n');
      const statements = shellStatements(fake);
      const outcomes = await runStatements(statements, {
        root: ROOT,
        work: dir,
        env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
        plan: [
          { match: /^mcp-db-bench serve |--http --port/, mode: { kind: 'server' } },
          { match: /^mcp-db-bench run --target/, mode: { kind: 'started', ready: /never printed/, why: 'a test' } },
        ],
        ports: { 7400: await freePort(), 7500: await freePort() },
        timeoutMs: 20_000,
      });
      expect(outcomes.map((o) => [o.statement.line, o.how, o.error?.split('\n')[0] ?? 'ok'])).toEqual([
        [2, 'run', 'ok'],
        [3, 'run', 'exited 2:'],
        [4, 'run', 'ok'],
        [5, 'run', 'ok'],
        [6, 'server', 'ok'],
        [7, 'server', expect.stringMatching(/^nothing listened on 127\.0\.0\.1:\d+:$/)],
        [8, 'started', expect.stringMatching(/^its output never matched/)],
        [9, 'run', expect.stringMatching(/^exited [12]:$/)],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('joins continuations and keeps a loop or a function whole; output fences are not run', () => {
    const md = [
      '```sh',
      'a \\',
      '  b',
      'for i in 1 2; do',
      '  echo $i',
      'done',
      'f() { x; }',
      '```',
      '```',
      'not run',
      '```',
    ];
    expect(shellStatements(md.join('\n'))).toEqual([
      { section: 0, line: 2, end: 3, text: 'a  b' },
      { section: 0, line: 4, end: 6, text: 'for i in 1 2; do\n  echo $i\ndone' },
      { section: 0, line: 7, end: 7, text: 'f() { x; }' },
    ]);
  });
});
