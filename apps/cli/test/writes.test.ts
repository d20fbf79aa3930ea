import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WriteVerification } from '@mcp-db-bench/agent';
import { resultFile } from '@mcp-db-bench/contract';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
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

  // The integrity check: 50 agents for 30 s, inserts, updates, deletes and transfers
  // at once, on every engine.
  it.each(liveTargets())(
    'keeps every acknowledged write and conserves money under 50 agents for 30 s on $engine',
    async (target) => {
      const url = await freshDatabase(target, 'bench_writes_integrity');
      const out = join(dir, `integrity-${target.engine}.json`);
      const r = await run([
        'run',
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
