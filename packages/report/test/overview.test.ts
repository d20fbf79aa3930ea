import { fileURLToPath } from 'node:url';
import type { ResultFile } from '@mcp-db-bench/contract';
import { describe, expect, it } from 'vitest';
import { readResultFile } from '../src/files.js';
import { overview } from '../src/render/overview.js';
import { renderRuns } from '../src/render/runs.js';

/** A saved run of two databases (SQLite and PostgreSQL, both index sets): see fixtures/results/README.md. */
const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/results/${name}`, import.meta.url));
const FILE = fixture('two-databases.json');
const result = readResultFile(FILE);
const lines = (text: string) => text.trimEnd().split('\n');
const widest = (text: string) => Math.max(...lines(text).map((l) => l.length));

/** The same run as if it had measured SQLite alone: the default run's shape (one database, its floor). */
function oneDatabase(file: ResultFile): ResultFile {
  const keep = (target: string) => !target.startsWith('postgres');
  return {
    ...file,
    config: { ...file.config, targets: file.config.targets.filter((t) => keep(t.label)) },
    steps: file.steps.filter((s) => keep(s.target)),
    sessionInit: file.sessionInit.filter((s) => keep(s.target)),
    decomposition: file.decomposition.filter((d) => keep(d.target)),
    tokens: file.tokens?.filter((t) => keep(t.target)),
    agreement: undefined,
    comparisons: file.comparisons?.filter((c) => keep(c.base.target) && keep(c.other.target)),
  };
}

describe('the default report', () => {
  // 80 and 120: terminals; undefined: a file or a pipe, kept to 100 columns
  for (const width of [80, 120, undefined]) {
    it(`fits ${width ?? 'a pipe'}: no line wider, a screen long`, { timeout: 30_000 }, () => {
      const text = renderRuns([{ label: 'run', result }], 'table', width);
      expect(widest(text)).toBeLessThanOrEqual(width ?? 100);
      expect(lines(text).length).toBeLessThanOrEqual(width === 80 ? 60 : 50);
      // the summary's numbers and the verdicts are there, with what their signs and names mean
      expect(text).toMatch(/Summary \(optimized indexes/);
      expect(text).toMatch(/index speed-up on sqlite/);
      expect(text).toMatch(/engines compared, postgres\/sqlite/);
      expect(text).toMatch(/ratios: the median of 5 per-iteration ratios/);
      expect(text).toMatch(/2025 session: MCP 2025-11-25/);
      expect(text).toMatch(/tokens in tools\/list and a session start: 612 and 2,050 on every target/);
      expect(text).toMatch(/answers agree|answered/);
    });
  }

  it('fits one database in 80 columns and 40 lines', { timeout: 30_000 }, () => {
    const text = overview(oneDatabase(result), 80, { file: 'mcp-db-bench-results/run.json' });
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(lines(text).length).toBeLessThanOrEqual(40);
    // a column per agent count, no target column for one server
    expect(text).toMatch(/│ workload +│ +1 agent │ +4 agents │ +16 agents │/);
    expect(lines(text).at(-1)).toBe('every table: mcp-db-bench report --full mcp-db-bench-results/run.json');
  });

  it('gives what the run was asked for a line: transactions, engines compared, the trace split, tokens', () => {
    const transfers = readResultFile(fixture('transfers.json'));
    const text = overview(transfers, 80);
    expect(text).toMatch(/^transfer: committed transactions\/s, not calls\/s$/m);
    expect(text).toMatch(
      /^transfer on mariadb: committed\/s \d+ at 1 agent, \d+ at 4 agents · \d+ conflicts? ·\nledger verified$/m,
    );
    expect(text).toMatch(/^engines compared, mariadb\/sqlite at 4 agents:\s+transfer /m);
    expect(text).toMatch(/^tokens in tools\/list and a session start: sqlite 1,651 and 3,058; mariadb 1,651$/m);
    // --trace-split: where a p50 call went, in shares of it
    const split = { clientUs: 1000, serverUs: 600, databaseUs: 300, waitUs: 0, protocolUs: 300 };
    const traced: ResultFile = {
      ...transfers,
      steps: transfers.steps.map((s) =>
        s.workload === 'point-read' && s.target === 'mariadb 2025 session'
          ? { ...s, traceSplit: { calls: 100, p50: { ...split, networkUs: 400 }, p99: split } }
          : s,
      ),
    };
    expect(overview(traced, 200)).toContain(
      'where a p50 call went on mariadb (--trace-split, most agents): point-read 1.00 ms: database 30%, wait 0%, protocol 30%, network 40%',
    );
  });

  it('keeps every table behind --full', { timeout: 30_000 }, () => {
    const full = renderRuns([{ label: 'run', result }], 'table', 120, true);
    expect(full).toMatch(/Latency and throughput per workload/);
    expect(lines(full).length).toBeGreaterThan(lines(renderRuns([{ label: 'run', result }], 'table', 120)).length);
  });
});
