import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIN_NODE } from '@mcp-db-bench/server/node-version';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<CliRun> {
  return runCli(args, { env: { PATH: process.env.PATH ?? '' }, timeoutMs: 120_000 });
}

/** The last stderr line of a failed run: the one the error boundary wrote. */
function failure(r: CliRun): string {
  expect(r.code).not.toBe(0);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trim().split('\n').at(-1)!;
}

describe('mcp-db-bench seed', () => {
  const db = `sqlite:${join(dir, 'shop.db')}`;

  it('loads a scale into SQLite and reports rows, rates and checks as JSON', async () => {
    const r = await run(['seed', '--db', db, '--scale', '0.005', '--seed', '9', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ engine: 'sqlite', scale: 0.005, seed: 9, indexes: 'optimized' });
    const rows = Object.fromEntries(report.tables.map((t: { name: string; rows: number }) => [t.name, t.rows]));
    const { accounts, cards, payments, ...study } = rows;
    expect(Object.values(study).reduce((n: number, r) => n + (r as number), 0)).toBe(12_800);
    expect({ accounts, cards, payments }).toEqual({ accounts: 100, cards: 150, payments: 0 });
    expect(report.checks.ok).toBe(true);
    expect(r.stderr).toMatch(/order_items: 6,000 rows in [\d.]+ s/);
  });

  it('prints a summary table by default', async () => {
    const r = await run(['seed', '--db', db, '--scale', '0.001', '--force']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/order_items\s+│\s+1,200\s+│/);
    expect(r.stdout).toMatch(/foreign keys: all 16 resolve/);
  });

  it('keeps --json as the old spelling of --format json, and prints Markdown too', async () => {
    const json = await run(['seed', '--db', db, '--scale', '0.001', '--force', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ engine: 'sqlite', scale: 0.001 });
    const md = await run(['seed', '--db', db, '--scale', '0.001', '--force', '--format', 'markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/^### sqlite: scale 0\.001/);
    expect(md.stdout).toMatch(/\| order_items \| 1,200 \|/);
  });

  it('refuses to overwrite existing tables without --force, naming the scale and seed they hold', async () => {
    expect(failure(await run(['seed', '--db', db, '--scale', '0.002']))).toMatch(
      /already has dataset tables .* at scale 0\.001, seed 42; pass --force/,
    );
  });

  it('says a run uses tables of another scale than asked, and runs on them', async () => {
    const short = '--scale 0.002 --workloads point-read --agents 1 --duration 200ms --warmup 100ms --iterations 1';
    const r = await run(['run', '--db', db, ...short.split(' ')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'using the dataset tables already there, at scale 0.001 and seed 42, not the scale 0.002 and seed 42 asked',
    );
  });

  it('switches index sets on the loaded database', async () => {
    const down = await run(['index', '--db', db, '--indexes', 'baseline']);
    expect(down.stdout).toMatch(/baseline index set .* created none; dropped ix_/);
    // the old spelling still works
    const up = await run(['index', '--db', db, '--profile', 'optimized']);
    expect(up.stdout).toMatch(/optimized index set .* created ix_categories_parent_id/);
  });

  it.each([
    [['--scale', '-1'], /scale must be above 0/],
    [['--scale', '1e9'], /scale must be above 0 and at most 100/],
    [['--seed', 'x'], /seed must be a whole number/],
    [['--indexes', 'fast'], /index set must be one of: baseline, optimized/],
    [['--db', 'foo://x'], /unknown database URL scheme "foo:"/],
    [['--db', 'postgres://bench:bench@127.0.0.1:1/bench'], /Cannot reach the PostgreSQL server/],
    [['--db', 'mysql://bench:bench@127.0.0.1:1/bench'], /Cannot reach the MySQL\/MariaDB server/],
    [['--db', `sqlite:${join(dir, 'missing', 'x.db')}`], /cannot open SQLite database/],
  ])('rejects %j with one actionable line', async (args, message) => {
    expect(failure(await run(['seed', ...args]))).toMatch(message);
  });

  it.each(['seed', 'run', 'serve', 'index'])(
    '%s: a URL no engine takes is a usage error (exit 2), its hint unmasked',
    async (command) => {
      const r = await run([command, '--db', 'foo://x']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^mcp-db-bench: --db: unknown database URL scheme "foo:"; use .*mariadb:\/\/USER:PASS@HOST/,
      );
    },
  );

  it('serve refuses a non-loopback address without a token before it seeds anything', async () => {
    const path = join(dir, 'exposed.db');
    const r = await run(['serve', '--db', `sqlite:${path}`, '--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without --token/);
    expect(existsSync(path)).toBe(false);
  });

  it('index refuses a database that was never seeded, without creating it', async () => {
    const path = join(dir, 'empty.db');
    expect(failure(await run(['index', '--db', `sqlite:${path}`, '--indexes', 'optimized']))).toMatch(
      /cannot open SQLite database|not a seeded database/,
    );
    expect(existsSync(path)).toBe(false);
  });

  it.skipIf(!process.env.PG_URL)(
    'reports a wrong PostgreSQL password in one line and leaves nothing behind',
    async () => {
      const url = new URL(process.env.PG_URL!);
      url.password = 'wrong';
      expect(failure(await run(['seed', '--db', url.toString()]))).toMatch(/refused the login/);
    },
  );
});

describe('mcp-db-bench doctor', () => {
  it('checks Node, the drivers and a seeded database', async () => {
    const db = `sqlite:${join(dir, 'doctor.db')}`;
    expect((await run(['seed', '--db', db, '--scale', '0.001'])).code).toBe(0);
    const r = await run(['doctor', '--db', db, '--db', 'foo://x']);
    // The minimum the bins enforce, not only its major version.
    expect(r.stdout).toMatch(
      new RegExp(`^ok {3}Node [\\d.]+ \\(needs ${MIN_NODE.replaceAll('.', '\\.')} or newer\\)$`, 'm'),
    );
    // @electric-sql/pglite's exports leave out its package.json: its version is read from beside its entry point.
    for (const pkg of ['pg', 'mysql2', 'tedious', 'better-sqlite3', '@electric-sql/pglite'])
      expect(r.stdout).toMatch(new RegExp(`^ok .* driver ${pkg} \\d`, 'm'));
    expect(r.stdout).toMatch(/^ok .*doctor\.db: connected \(sqlite\); 11 of 11 dataset tables$/m);
    expect(r.stdout).toMatch(/^FAIL foo:\/\/x: unknown database URL scheme/m);
    expect(r.code).toBe(1);
  });
});
