import type { SeedReport } from '@mcp-db-bench/dataset';
import { int, type Section } from '@mcp-db-bench/report';
import Table from 'cli-table3';

const secs = (s: number) => s.toFixed(2);

/** The seed's final summary: rows, seconds and rows/s per table, then the checks. Pure. */
export function renderSeedSummary(report: SeedReport): string {
  const table = new Table({
    head: ['table', 'rows', 'seconds', 'rows/s'],
    colAligns: ['left', 'right', 'right', 'right'],
    style: { head: [], border: [], compact: true },
  });
  for (const t of report.tables) table.push([t.name, int(t.rows), secs(t.seconds), int(t.rows / t.seconds)]);
  const rows = report.tables.reduce((n, t) => n + t.rows, 0);
  const loading = report.tables.reduce((n, t) => n + t.seconds, 0);
  table.push(['all tables', int(rows), secs(loading), int(rows / loading)]);

  const badCounts = report.checks.counts.filter((c) => c.expected !== c.actual);
  const orphans = report.checks.orphans.filter((o) => o.rows > 0);
  const lines = [
    `${report.engine}: scale ${report.scale}, seed ${report.seed}, ${report.indexes} indexes`,
    table.toString(),
    `keys, indexes and statistics: ${secs(report.finishSeconds)} s; checks: ${secs(report.verifySeconds)} s; total ${secs(report.seconds)} s` +
      (report.peakRssMb ? `; peak memory ${report.peakRssMb} MB` : ''),
    badCounts.length
      ? `row counts WRONG: ${badCounts.map((c) => `${c.table} has ${c.actual}, expected ${c.expected}`).join('; ')}`
      : `row counts: all ${report.checks.counts.length} tables as generated`,
    orphans.length
      ? `foreign keys BROKEN: ${orphans.map((o) => `${o.rows} ${o.table}.${o.column} without a ${o.references} row`).join('; ')}`
      : `foreign keys: all ${report.checks.orphans.length} resolve`,
  ];
  return `${lines.join('\n')}\n`;
}

/** The same summary as Markdown sections: the table per table, the checks as the note. */
export function seedSummarySections(report: SeedReport): Section[] {
  const rows = report.tables.map((t) => [t.name, int(t.rows), secs(t.seconds), int(t.rows / t.seconds)]);
  const all = report.tables.reduce((n, t) => n + t.rows, 0);
  const loading = report.tables.reduce((n, t) => n + t.seconds, 0);
  rows.push(['all tables', int(all), secs(loading), int(all / loading)]);
  // the last three lines of the terminal summary: timings, row counts, foreign keys
  const checks = renderSeedSummary(report).trimEnd().split('\n').slice(-3);
  return [
    {
      title: `${report.engine}: scale ${report.scale}, seed ${report.seed}, ${report.indexes} indexes`,
      note: checks.join('; '),
      head: ['table', 'rows', 'seconds', 'rows/s'],
      rows,
    },
  ];
}
