import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readResultFile } from '@mcp-db-bench/report';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const run = promisify(execFile);
const CLIENTS = fileURLToPath(new URL('../bench/clients.mjs', import.meta.url));

/**
 * A bench script's --out file is a result file like a run's: `report` and `compare` open it.
 * clients.mjs seeds its own SQLite database and starts our server; one short cell of our lean
 * client is enough to prove the file.
 */
describe('a bench script’s result file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-bench-result-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('clients.mjs --out writes a file that report and compare open', async () => {
    const file = join(dir, 'clients.json');
    const args = ['--clients', 'lean,sdk', '--agents', '1', '--workloads', 'get', '--duration', '1s'];
    await run(process.execPath, [CLIENTS, ...args, '--warmup', '200ms', '--rounds', '1', '--out', file], {
      timeout: 180_000,
    });
    const result = readResultFile(file);
    expect(result.config.targets.map((t) => t.label)).toEqual(['lean', 'sdk']);
    expect(result.steps.map((s) => `${s.target} ${s.workload} × ${s.agents}`)).toEqual(['lean get × 1', 'sdk get × 1']);
    for (const s of result.steps) expect(s.all.count, s.target).toBe(s.calls);
    expect(result.steps[0]!.calls).toBeGreaterThan(0);

    const report = await runCli(['report', file, '--format', 'markdown'], { timeoutMs: 30_000 });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/\| lean \|/);
    expect(report.stdout).toMatch(/\| sdk \|/);

    const compare = await runCli(['compare', file, file, '--format', 'json'], { timeoutMs: 30_000 });
    expect(compare.code, compare.stderr).toBe(0);
    const rows = JSON.parse(compare.stdout) as { rows?: unknown[] };
    expect(JSON.stringify(rows)).toContain('lean');
  }, 240_000);
});
