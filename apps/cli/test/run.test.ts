import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import { INDEX_SETS, seed } from '@mcp-db-bench/dataset';
import { freshDatabase } from '@mcp-db-bench/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { indexSetOf } from '../src/serving/shard.js';
import { testDelayWarning } from '../src/warnings.js';
import { type CliRun, runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun> {
  return runCli(args, { cwd: dir, timeoutMs: 240_000, env: env && { ...process.env, ...env } });
}

describe('what a run records about itself', () => {
  const delay = { MCP_DB_BENCH_TEST_DELAY_MS: '2' };

  it('warns of the test-only delay whenever it started our server: --db and the default temporary database alike', () => {
    expect(testDelayWarning({}, delay)).toBe(
      'every tool call was delayed 2 ms on purpose (MCP_DB_BENCH_TEST_DELAY_MS): a test run, not a measurement',
    );
    expect(testDelayWarning({ target: ['http://127.0.0.1:7400/mcp'] }, delay)).toBeUndefined();
    expect(testDelayWarning({ targetCmd: ['node server.js'] }, delay)).toBeUndefined();
    expect(testDelayWarning({}, {})).toBeUndefined();
    expect(testDelayWarning({}, { MCP_DB_BENCH_TEST_DELAY_MS: '0' })).toBeUndefined();
  });

  it('names the index set a shared database has, as a shard finds it', () => {
    const optimized = INDEX_SETS.optimized.map((i) => i.name);
    expect(indexSetOf(optimized)).toBe('optimized');
    expect(indexSetOf([...optimized.map((n) => n.toUpperCase()), 'ix_extra'])).toBe('optimized');
    expect(indexSetOf([])).toBe('baseline');
    expect(indexSetOf(['ix_unrelated'])).toBe('baseline');
    expect(indexSetOf(optimized.slice(0, 3))).toBe(`partial (3 of ${optimized.length} optimized indexes)`);
  });

  it('records the scale, indexes, version and settings read from the database, not from the flags', async () => {
    const path = join(dir, 'reused.db');
    await seed({ url: `sqlite:${path}`, scale: 0.002, seed: 3, indexes: 'baseline', force: false });
    const file = join(dir, 'reused.json');
    // the default --scale is 0.01: the database already holds a dataset of 0.002, which is what runs
    const r = await run(
      ['run', '--db', `sqlite:${path}`, '--workloads', 'point-read', '--agents', '1', '--duration', '200ms'].concat([
        '--warmup',
        '100ms',
        '--iterations',
        '1',
        '--check-calls',
        '0',
        '--full',
        '--out',
        file,
      ]),
    );
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(result.config.scale).toBe(0.002);
    const database = result.config.targets[0]!.database!;
    expect(database).toMatchObject({ scale: 0.002, seed: 3, version: expect.stringMatching(/^SQLite 3\./) });
    expect(Object.keys(database.settings)).toEqual(['cache_size', 'mmap_size', 'journal_mode']);
    expect(database.indexes.baseline).toEqual([]);
    expect(database.indexes.optimized).toHaveLength(INDEX_SETS.optimized.length);
    expect(r.stdout).toMatch(/ · scale 0\.002\n/);
    // the header wraps at 100 columns on a pipe
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(
      /sqlite: SQLite 3\.[\d.]+ · dataset scale 0\.002 \(seed 3\) · cache_size -?\d+, mmap_size \d+, journal_mode \w+ · secondary indexes: baseline 0, optimized 12 /,
    );
  });

  it('refuses --indexes with --shard, naming the command that sets them', async () => {
    const r = await run([
      'run',
      '--db',
      `sqlite:${join(dir, 'none.db')}`,
      '--shard',
      '0/2',
      '--barrier-file',
      join(dir, 'b'),
      '--indexes',
      'baseline',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/set it once with mcp-db-bench index --indexes SET\n$/);
  });

  it('takes --token from MCP_DB_TOKEN, as the server does, and sends it to the --target', async () => {
    const seen: string[] = [];
    // a server that refuses everyone: the run fails at once, after showing what it sent
    const server = createServer((req, res) => {
      if (req.method === 'POST') seen.push(req.headers.authorization ?? '(none)');
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const r = await run(
        [
          'run',
          '--target',
          url,
          '--workloads',
          'point-read',
          '--agents',
          '1',
          '--duration',
          '300ms',
          '--warmup',
          '100ms',
        ],
        { MCP_DB_TOKEN: 's3cret' },
      );
      expect(r.code, r.stderr).not.toBe(0);
      expect(seen.length, r.stderr).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['Bearer s3cret']));
    } finally {
      server.close();
    }
    expect((await run(['run', '--help'])).stdout.replace(/\s+/g, ' ')).toMatch(/env: MCP_DB_TOKEN/);
  });

  it('a shard records the index set it found on the shared database, and merge and the HTML header keep it', async () => {
    const db = `sqlite:${join(dir, 'shared.db')}`;
    await seed({ url: db, scale: 0.002, seed: 1, indexes: 'optimized', force: false });
    const startAt = new Date(Date.now() + 2000).toISOString();
    const shard = await run([
      'run',
      '--db',
      db,
      '--workloads',
      'point-read',
      '--agents',
      '1',
      '--duration',
      '300ms',
      '--warmup',
      '100ms',
      '--check-calls',
      '0',
      '--shard',
      '0/1',
      '--start-at',
      startAt,
      '--out',
      'shard-0.json',
    ]);
    expect(shard.code, shard.stderr).toBe(0);
    const file = resultFile.parse(JSON.parse(readFileSync(join(dir, 'shard-0.json'), 'utf8')));
    expect(file.config.indexes).toEqual(['optimized']);
    // never re-indexed: its steps are not index rounds
    expect(file.steps.map((s) => s.indexes)).toEqual([null]);
    const merged = await run(['merge', 'shard-0.json', '-o', 'merged.json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(resultFile.parse(JSON.parse(readFileSync(join(dir, 'merged.json'), 'utf8'))).config.indexes).toEqual([
      'optimized',
    ]);
    const html = await run(['report', 'merged.json', '--format', 'html']);
    expect(/data-summary="configuration">([^<]*)</.exec(html.stdout)?.[1]).toMatch(/ · indexes optimized · /);
  }, 120_000);
});

describe('mcp-db-bench run', () => {
  const out = join(dir, 'result.json');
  const workloads = ['session-init', 'session-churn', 'point-read', 'filtered', 'analytical', 'mixed', 'echo'];

  it('runs every workload at two concurrency levels in two index rounds and writes a valid result file', async () => {
    const r = await run([
      'run',
      '--scale',
      '0.002',
      '--agents',
      '1,2',
      '--duration',
      '300ms',
      '--warmup',
      '100ms',
      '--iterations',
      '3',
      '--full',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(result.config.iterations).toBe(3);
    expect(result.config.targets.map((t) => t.engine)).toEqual(['sqlite']);
    // the default measures what hosts speak: the 2025 era on a session
    expect(result.config.targets.map((t) => t.label)).toEqual(['sqlite 2025 session']);
    expect(result.config.protocol).toBe('legacy');
    // database workloads run once per index set, echo once, and the bare node:http floor once, each iteration
    expect(result.steps).toHaveLength(((workloads.length - 1) * 2 * 2 + 2 + 2) * 3);
    // the two index sets alternate, paired per iteration: each ratio has its interval (3 iterations: too few to
    // say no difference); an iteration whose step overran (a 300 ms step on a busy machine), or that other
    // processes disturbed, is left out, counted and said why
    const speedups = result.comparisons!.filter((c) => c.kind === 'indexes');
    expect(speedups).toHaveLength((workloads.length - 1) * 2);
    for (const c of speedups) {
      const { empty, overran, unpaired, few = 0, disturbed = 0 } = c.excluded!;
      expect(c.iterations.length + empty + overran + unpaired + few + disturbed).toBe(3);
      expect(c.withheld).toHaveLength(3 - c.iterations.length);
      expect(unpaired).toBe(0);
    }
    // its verdict: undecided on 3 iterations, a difference, or withheld on a busy machine
    expect(r.stdout).toMatch(
      /│\s+point-read\s+│\s+2\s+│[^\n]*(?:~ \([\d.]+–[\d.]+\)|[\d.]+x \[[\d.]+–[\d.]+\]|withheld \(\d of 3 iterations)/,
    );
    for (const step of result.steps) {
      expect(step.calls, `${step.workload} × ${step.agents}`).toBeGreaterThan(0);
      expect(step.errors, `${step.workload} × ${step.agents}`).toEqual({});
    }
    expect(new Set(result.steps.map((s) => s.workload))).toEqual(new Set([...workloads, 'http-echo']));
    expect(result.sessionInit.map((s) => s.indexes)).toEqual(['baseline', 'optimized']);
    expect(result.decomposition.map((d) => d.operation)).toEqual(['get orders by id', 'query order_items by order_id']);
    for (const section of [
      'Session init',
      'Latency and throughput',
      'Sessions',
      'Concurrency scaling',
      'Index speed-up',
      'Where the time goes',
      'Load generator check',
    ]) {
      expect(r.stdout).toContain(section);
    }
    // the session workloads' rows say how many session starts were refused, even when none were
    expect(r.stdout).toMatch(
      /│\s+sqlite 2025 session \(optimized\)\s+│\s+session-churn\s+│\s+2\s+│\s+[\d,.]+\s+│\s+0\s+│\s+0\s+│\s+0\s+│/,
    );
    for (const step of result.steps) expect(step.reinitialized, step.workload).toBe(0);
    // the echo floor the run added serves echo alone: the database workloads pass it by, unreported
    expect(result.skipped).toEqual([]);
    expect(r.stderr).not.toMatch(/skipping/);
  });

  it('renders the saved result as Markdown and JSON without re-running', async () => {
    const md = await run(['report', out, '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/### Latency and throughput/);
    expect(md.stdout).toMatch(/\| sqlite 2025 session \(optimized\) \| point-read \| 2 \|/);
    const json = await run(['report', out, '--format', 'json']);
    expect(resultFile.safeParse(JSON.parse(json.stdout)).success).toBe(true);
  });

  it.skipIf(!process.env.PG_URL || !process.env.MYSQL_URL)(
    'compares SQLite, PostgreSQL and MariaDB side by side in one run',
    async () => {
      const pg = await freshDatabase({ engine: 'postgres', baseUrl: process.env.PG_URL! }, 'bench_run');
      const maria = await freshDatabase({ engine: 'mariadb', baseUrl: process.env.MYSQL_URL! }, 'bench_run');
      const file = join(dir, 'compare.json');
      const r = await run([
        'run',
        '--db',
        `sqlite:${join(dir, 'compare.db')}`,
        '--db',
        pg,
        '--db',
        maria,
        '--scale',
        '0.002',
        '--agents',
        '1,2',
        '--workloads',
        'point-read,filtered',
        '--indexes',
        'optimized',
        '--duration',
        '300ms',
        '--warmup',
        '100ms',
        '--full',
        '--out',
        file,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const result = resultFile.parse(JSON.parse(readFileSync(file, 'utf8')));
      // a database is named as its server says it is: MariaDB, whatever the URL's scheme
      const third = result.config.targets[2]!.database!.version.startsWith('MariaDB') ? 'mariadb' : 'mysql';
      expect(result.config.targets.map((t) => t.label)).toEqual([
        'sqlite 2025 session',
        'postgres 2025 session',
        `${third} 2025 session`,
      ]);
      expect(result.config.targets[2]!.engine).toBe(third);
      for (const step of result.steps) expect(step.errors, `${step.target} ${step.workload}`).toEqual({});
      expect(r.stdout).toMatch(/Engines compared \(optimized indexes\)/);
      // every engine against the first, judged on 5 paired iterations (the default of a comparison): an
      // interval with its verdict, or withheld (a busy machine)
      expect(result.config.iterations).toBe(5);
      const verdict = String.raw`(?:(?:~ \(|no difference \(|[\d.]+x \[)[\d.]+–[\d.]+[)\]](?: \(\d of 5 iterations\))?|withheld \([^│]*\))`;
      expect(r.stdout).toMatch(
        new RegExp(
          String.raw`│\s+point-read │\s+2 │\s+[\d,.]+ /s, p50 [\d.]+(?: │\s+[\d,.]+ /s, p50 [\d.]+, ${verdict}){2} │`,
        ),
      );
    },
  );

  it('measures both protocol eras side by side, the host era first, each row naming its era', async () => {
    const file = join(dir, 'eras.json');
    const r = await run([
      'run',
      '--db',
      `sqlite:${join(dir, 'eras.db')}`,
      '--scale',
      '0.002',
      '--agents',
      '1',
      '--protocol',
      'legacy,modern',
      '--workloads',
      'session-init,point-read',
      '--indexes',
      'optimized',
      '--iterations',
      '1',
      '--duration',
      '300ms',
      '--warmup',
      '100ms',
      '--full',
      '--out',
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = resultFile.parse(JSON.parse(readFileSync(file, 'utf8')));
    expect(result.config.targets.map((t) => t.label)).toEqual(['sqlite 2025 session', 'sqlite 2026']);
    expect(result.sessionInit.map((s) => s.target)).toEqual(['sqlite 2025 session', 'sqlite 2026']);
    const steps = result.steps.filter((s) => s.workload === 'point-read');
    expect(steps.map((s) => s.target)).toEqual(['sqlite 2025 session', 'sqlite 2026']);
    for (const step of steps) expect(step.errors).toEqual({});
    expect(r.stdout).toMatch(/sqlite 2025 session \(optimized\)/);
    expect(r.stdout).toMatch(/sqlite 2026 \(optimized\)/);
  });

  it('keeps the result file of a run given no --out, says where, and fits COLUMNS on a pipe', async () => {
    // the OS temp directory is TMPDIR's: this test's own
    const temp = join(dir, 'temp');
    const r = await run(
      [
        'run',
        '--db',
        `sqlite:${join(dir, 'kept.db')}`,
        '--scale',
        '0.002',
        '--agents',
        '1',
        '--workloads',
        'point-read,echo',
        '--indexes',
        'optimized',
        '--duration',
        '300ms',
        '--warmup',
        '100ms',
      ],
      { TMPDIR: temp, COLUMNS: '80' },
    );
    expect(r.code, r.stderr).toBe(0);
    const kept = /^result file: (\S+) \(--out FILE keeps it where you choose\)$/m.exec(r.stderr)?.[1];
    expect(kept).toMatch(
      new RegExp(`^${temp}/mcp-db-bench-results/\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\dZ\\.json$`),
    );
    const lines = r.stdout.trimEnd().split('\n');
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
    // the last line, wrapped before the path where it would pass 80 columns
    expect(lines.slice(-2).join(' ')).toMatch(new RegExp(`every table: mcp-db-bench report --full ${kept}$`));
    // every table from it, without measuring again
    const full = await run(['report', '--full', kept!]);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toMatch(/Latency and throughput per workload/);
  });

  it('refuses a file that is not a result file', async () => {
    const r = await run(['report', join(dir, 'result.json.missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `mcp-db-bench: cannot read the result file ${join(dir, 'result.json.missing')}: no such file\n`,
    );
  });
});
