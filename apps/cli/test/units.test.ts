import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResultFile, resultFile } from '@mcp-db-bench/contract';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './support/cli.js';

/**
 * A study's units end to end, through the built bin on real databases: the handshake alone,
 * a workload's own agent counts, the analytical kinds and their operations.
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-units-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun> =>
  runCli(args, { cwd: dir, timeoutMs: 240_000, env });

const read = (file: string): ResultFile => resultFile.parse(JSON.parse(readFileSync(file, 'utf8')));
const name = (s: { workload: string; agents: number }) => `${s.workload} × ${s.agents}`;
const common = ['--scale', '0.002', '--indexes', 'optimized', '--warmup', '100ms', '--check-calls', '0'];

describe("a study's units", () => {
  it('runs the handshake, point reads at their own agent counts and the analytical kinds in one run', async () => {
    const out = join(dir, 'units.json');
    const r = await run([
      'run',
      '--full',
      '--db',
      `sqlite:${join(dir, 'units.db')}`,
      ...common,
      '--workloads',
      'handshake,point-read,analytical,analytical-entity,analytical-table',
      '--workload-agents',
      'point-read=1,3',
      '--agents',
      '1',
      '--duration',
      '500ms',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = read(out);
    expect(result.config.workloadAgents).toEqual({ 'point-read': [1, 3] });
    expect(result.steps.map(name)).toEqual([
      'handshake × 1',
      'point-read × 1',
      'point-read × 3',
      'analytical × 1',
      'analytical-entity × 1',
      'analytical-table × 1',
    ]);
    for (const s of result.steps) {
      expect(s.calls, name(s)).toBeGreaterThan(0);
      expect(s.errors, name(s)).toEqual({});
    }
    const [handshake] = result.steps;
    // no database behind it: once, outside the index rounds; each operation a session
    expect(handshake).toMatchObject({ indexes: null, sessions: true });
    expect(Object.keys(handshake!.operations)).toEqual(['handshake']);
    const ops = (workload: string) => Object.keys(result.steps.find((s) => s.workload === workload)!.operations).sort();
    expect(ops('analytical-entity')).toEqual(['aggregate:entity']);
    expect(ops('analytical-table')).toEqual(['aggregate:table']);
    // 75/25 over a few hundred calls: both kinds
    expect(ops('analytical')).toEqual(['aggregate:entity', 'aggregate:table']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('agents 1; point-read 1, 3');
    expect(r.stdout).toMatch(/│\s+point-read │\s+1: [\d,.]+ \(100%\) · 3: [\d,.]+ \(\d+%\) │/);
    expect(r.stdout).toContain('Operations: each kind of call within a workload');
    expect(r.stdout).toMatch(/│\s+analytical │\s+1 │ aggregate:entity │\s+[\d,.]+ │\s+\d+% │\s+\d+% │/);
    expect(r.stdout).toMatch(/│\s+│\s+│\s+│\s+aggregate:table │/);
    // a workload of one operation has its row in the latency table only
    expect(r.stdout).not.toMatch(/analytical-entity │\s+1 │ aggregate:entity/);
  });

  // every live engine but PGlite (one process at a time), in both eras
  it.each(liveTargets().filter((t) => t.engine !== 'pglite'))(
    'measures the handshake alone on $engine, in the 2025 and the 2026-07-28 era',
    async (target) => {
      const url = await freshDatabase(target, 'bench_units_handshake');
      const out = join(dir, `handshake-${target.engine}.json`);
      const r = await run([
        'run',
        '--full',
        '--db',
        url,
        ...common,
        '--workloads',
        'handshake',
        '--protocol',
        'legacy,modern',
        '--agents',
        '2',
        '--duration',
        '400ms',
        '--iterations',
        '1',
        '--out',
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const steps = read(out).steps;
      // the label names the URL's scheme (mysql: for MariaDB), then the era
      expect(steps.map((s) => `${s.target.replace(/^\S+ /, '')}: ${name(s)}`)).toEqual([
        '2025 session: handshake × 2',
        '2026: handshake × 2',
      ]);
      for (const s of steps) {
        expect(s.calls, s.target).toBeGreaterThan(0);
        expect(s.errors, s.target).toEqual({});
        expect(s.reinitialized, s.target).toBe(0);
      }
    },
  );

  // SQLite and every live server engine (PGlite has its own suites)
  it.each(liveTargets().filter((t) => t.engine !== 'pglite'))(
    'headlines transfers as commits per second and their conflicts on $engine',
    async (target) => {
      const url = await freshDatabase(target, 'bench_units_transfer');
      const out = join(dir, `transfer-${target.engine}.json`);
      const r = await run([
        'run',
        '--full',
        '--db',
        url,
        ...common,
        '--workloads',
        'transfer',
        '--agents',
        '8',
        '--duration',
        '1s',
        '--out',
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const [s] = read(out).steps;
      const commits = s!.commits!;
      expect(commits.op).toBe('transfer:commit');
      expect(commits.committed).toBeGreaterThan(0);
      // every successful commit call is one committed transfer; each conflict is a failed commit call
      expect(commits.committed).toBe(s!.operations['transfer:commit']!.count);
      expect(commits.conflicts).toBe(s!.errors['tool:conflict'] ?? 0);
      // a transfer is five calls: far fewer commits than calls
      expect(commits.committed).toBeLessThan(s!.calls / 3);
      // the step's verification counts the warm-up's transfers too
      expect(s!.verification!.acknowledged.transfer).toBeGreaterThanOrEqual(commits.committed);
      expect(r.stdout).toContain('Transactions: committed per second, and the conflicts they met');
      // committed/s as the report writes a rate
      const perSecond = commits.committed / (s!.durationMs / 1000);
      const rate = perSecond >= 100 ? Math.round(perSecond).toLocaleString('en-US') : perSecond.toFixed(1);
      expect(r.stdout).toMatch(new RegExp(`│\\s+transfer │\\s+8 │\\s+${rate} │`));
    },
  );
});
