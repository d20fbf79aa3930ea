import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultFile } from '@mcp-db-bench/contract';
import { engineForUrl } from '@mcp-db-bench/engines';
import type { WriteVerification } from '@mcp-db-bench/loadgen';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './support/cli.js';

/**
 * Write integrity end to end: `mcp-db-bench run` seeds, starts the server with --allow-writes,
 * runs agents that insert, update, delete and transfer, then reads everything back through MCP
 * and holds it to the writes the server acknowledged.
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-writes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<CliRun> {
  return runCli(args, { cwd: dir, timeoutMs: 300_000 });
}

type Step = {
  target: string;
  workload: string;
  agents: number;
  calls: number;
  errors: Record<string, number>;
  operations: Record<string, unknown>;
  verification?: WriteVerification;
};

/** The steps as written, verification included (the contract's schema does not know it yet). */
function stepsOf(file: string): Step[] {
  const raw = JSON.parse(readFileSync(file, 'utf8'));
  expect(resultFile.safeParse(raw).success).toBe(true);
  return raw.steps;
}

describe('write workloads', () => {
  it('runs write and transfer on SQLite, each step verified exact, with every transfer step measured', async () => {
    const out = join(dir, 'short.json');
    const r = await run([
      'run',
      '--full',
      '--db',
      `sqlite:${join(dir, 'short.db')}`,
      '--scale',
      '0.002',
      '--workloads',
      'write,transfer',
      '--agents',
      '1,4',
      '--indexes',
      'optimized',
      '--duration',
      '1s',
      '--warmup',
      '200ms',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const steps = stepsOf(out);
    expect(steps.map((s) => `${s.workload} × ${s.agents}`)).toEqual([
      'write × 1',
      'write × 4',
      'transfer × 1',
      'transfer × 4',
    ]);
    for (const s of steps) {
      const v = s.verification!;
      expect(v, `${s.workload} × ${s.agents}: ${v.problems.join('; ')}`).toMatchObject({
        ok: true,
        unknown: 0,
        lost: 0,
        phantom: 0,
        wrongValues: 0,
      });
      expect(v.money.after).toBe(v.money.before);
    }
    const write = steps.find((s) => s.workload === 'write' && s.agents === 4)!;
    expect(Object.keys(write.operations).sort()).toEqual(['write:delete', 'write:insert', 'write:update']);
    expect(write.verification!.acknowledged.insert).toBeGreaterThan(0);
    const transfer = steps.find((s) => s.workload === 'transfer' && s.agents === 4)!;
    expect(Object.keys(transfer.operations).sort()).toEqual([
      'transfer:account',
      'transfer:approver',
      'transfer:card',
      'transfer:commit',
      'transfer:payer',
    ]);
    expect(transfer.verification!.acknowledged.transfer).toBeGreaterThan(0);
    expect(transfer.verification!.payments.found).toBe(transfer.verification!.acknowledged.transfer);
    expect(r.stdout).toContain('Write verification');
    expect(r.stdout).toMatch(/│\s+transfer │\s+4 │.*│\s+exact │/);
    // the saved file renders the same verification without re-running
    const again = await run(['report', out, '--format', 'markdown']);
    expect(again.stdout).toMatch(/### Write verification/);
    expect(again.stdout).toMatch(/\| sqlite 2025 session \(optimized\) \| transfer \| 4 \|.*\| exact \|/);
  }, 120_000);

  it('puts the dataset back after writes: a read run right after a transfer run agrees across engines', async () => {
    // every live server engine beside SQLite (PGlite can be open in one process at a time, and has its own suites)
    const servers = liveTargets().filter((t) => t.engine !== 'pglite' && t.engine !== 'sqlite');
    const urls = [`sqlite:${join(dir, 'restore.db')}`];
    for (const t of servers) urls.push(await freshDatabase(t, 'bench_writes_restore'));
    const dbs = urls.flatMap((url) => ['--db', url]);
    const common = ['--scale', '0.002', '--indexes', 'optimized', '--iterations', '1', '--warmup', '200ms'];
    const out = join(dir, 'restore-transfer.json');
    const writes = await run(
      ['run', ...dbs, ...common, '--workloads', 'transfer,write', '--agents', '4', '--duration', '1s'].concat([
        '--check-calls',
        '0',
        '--out',
        out,
      ]),
    );
    expect(writes.code, writes.stderr).toBe(0);
    const steps = JSON.parse(readFileSync(out, 'utf8')).steps as (Step & {
      restored: { ok: boolean; payments: number; accounts: number };
    })[];
    expect(steps).toHaveLength(urls.length * 2);
    for (const s of steps) {
      expect(s.restored, `${s.target} ${s.workload}`).toMatchObject({ ok: true });
      expect(s.restored.payments, `${s.target} ${s.workload}`).toBeGreaterThan(0);
    }
    for (const s of steps.filter((x) => x.workload === 'transfer')) expect(s.restored.accounts).toBeGreaterThan(0);
    // the database itself: no payment left, every balance as seeded (weighted by id: a transfer moves the sum)
    const state: string[] = [];
    for (const url of urls) {
      const engine = engineForUrl(url);
      const { db, close } = await engine.connect(url, { poolSize: 1, inProcess: true });
      try {
        const n = await sql<{ n: unknown }>`select count(*) as n from payments`.execute(db);
        const total = await sql<{ t: unknown }>`select sum(balance * id) as t from accounts`.execute(db);
        state.push(`${Number(n.rows[0]!.n)} payments, balances ${Number(total.rows[0]!.t).toFixed(2)}`);
      } finally {
        await close();
      }
    }
    expect(state[0]).toMatch(/^0 payments/);
    expect(new Set(state).size, state.join('; ')).toBe(1);
    const reads = await run(
      ['run', ...dbs, ...common, '--workloads', 'point-read,filtered,analytical', '--agents', '1'].concat([
        '--duration',
        '200ms',
        '--check-calls',
        '30',
        '--out',
        join(dir, 'restore-read.json'),
      ]),
    );
    expect(reads.code, reads.stderr).toBe(0);
    const agreement = JSON.parse(readFileSync(join(dir, 'restore-read.json'), 'utf8')).agreement as {
      mismatches: number;
    }[];
    expect(agreement.length).toBe((urls.length - 1) * 3);
    for (const a of agreement) expect(a.mismatches, JSON.stringify(a)).toBe(0);
  }, 240_000);

  // The integrity check: 50 agents for 30 s, inserts, updates, deletes and transfers
  // at once, on every engine.
  it.each(liveTargets())(
    'keeps every acknowledged write and conserves money under 50 agents for 30 s on $engine',
    async (target) => {
      const url = await freshDatabase(target, 'bench_writes_integrity');
      const out = join(dir, `integrity-${target.engine}.json`);
      const r = await run([
        'run',
        '--full',
        '--db',
        url,
        '--scale',
        '0.002',
        '--workloads',
        'write-transfer',
        '--agents',
        '50',
        '--indexes',
        'optimized',
        '--duration',
        '30s',
        '--warmup',
        '1s',
        '--out',
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const [step] = stepsOf(out);
      const v = step!.verification!;
      expect(v, v.problems.join('; ')).toMatchObject({
        ok: true,
        unknown: 0,
        lost: 0,
        phantom: 0,
        wrongValues: 0,
        accounts: { mismatched: 0 },
      });
      expect(v.money.after).toBe(v.money.before);
      for (const op of ['insert', 'update', 'delete', 'transfer'] as const)
        expect(v.acknowledged[op], op).toBeGreaterThan(0);
      expect(v.payments).toEqual({ expected: v.acknowledged.transfer, found: v.acknowledged.transfer });
      // only definite refusals: a guard or a deadlock the server gave up on, nothing unexplained
      expect(
        Object.keys(step!.errors).filter((k) => k !== 'tool:conflict'),
        JSON.stringify(step!.errors),
      ).toEqual([]);
      expect(
        Object.keys(v.failed).filter((code) => code !== 'conflict'),
        JSON.stringify(v.failed),
      ).toEqual([]);
    },
    300_000,
  );
});
