import { BENCH_TABLE_PREFIX } from '@mcp-db-bench/contract';
import type { Catalog, Column, ForeignKey, RawCatalog, Table } from './types.js';

/** The benchmark's own tables (`mcp-db-bench seed`'s mark of what it loaded): not data an agent works on, so not served. */
const isBookkeeping = (name: string) => name.toLowerCase().startsWith(BENCH_TABLE_PREFIX);

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const keyOf = (fk: { columns: string[]; table: string; references: string[] }) =>
  `${fk.table}\u0000${fk.columns.join('\u0001')}\u0000${fk.references.join('\u0001')}`;

/**
 * Shapes an engine's raw introspection into the catalog tools read: tables sorted by name,
 * columns in table order, foreign keys in both directions, all in a deterministic order so
 * describe_table answers byte-identically on every engine.
 */
export function buildCatalog(raw: RawCatalog, exactCounts: ReadonlyMap<string, number>, now = Date.now()): Catalog {
  const tables = new Map<string, Table>();
  for (const t of [...raw.tables].sort((a, b) => byText(a.name, b.name))) {
    if (isBookkeeping(t.name)) continue;
    const columns: Column[] = raw.columns
      .filter((c) => c.table === t.name)
      .sort((a, b) => a.ordinal - b.ordinal)
      // Engines disagree on whether a view column can be null (MariaDB and SQL Server look
      // through to the base table, PostgreSQL and SQLite do not); say what all can promise.
      .map(({ table: _t, ordinal: _o, ...c }) => (t.kind === 'view' ? { ...c, nullable: true } : c));
    tables.set(t.name, {
      name: t.name,
      kind: t.kind,
      rows: t.kind === 'view' ? null : (exactCounts.get(t.name) ?? t.rowEstimate),
      columns,
      column: new Map(columns.map((c) => [c.name, c])),
      primaryKey: raw.primaryKeys.find((p) => p.table === t.name)?.columns ?? [],
      foreignKeys: [],
      referencedBy: [],
      indexes: [],
    });
  }
  for (const fk of raw.foreignKeys) {
    const from = tables.get(fk.table);
    const to = tables.get(fk.refTable);
    if (from) from.foreignKeys.push({ columns: fk.columns, table: fk.refTable, references: fk.refColumns });
    if (to) to.referencedBy.push({ columns: fk.columns, table: fk.table, references: fk.refColumns });
  }
  for (const ix of raw.indexes) {
    const table = tables.get(ix.table);
    if (!table) continue;
    // A unique constraint and the index backing it are one fact; report it once.
    const same = table.indexes.find((i) => i.columns.join() === ix.columns.join());
    if (same) {
      same.unique ||= ix.unique;
      same.ordered ||= ix.ordered;
    } else table.indexes.push({ columns: ix.columns, unique: ix.unique, ordered: ix.ordered });
  }
  for (const table of tables.values()) {
    const order = (a: ForeignKey, b: ForeignKey) => byText(keyOf(a), keyOf(b));
    table.foreignKeys.sort(order);
    table.referencedBy.sort(order);
    table.indexes.sort((a, b) => byText(a.columns.join('\u0001'), b.columns.join('\u0001')));
  }
  return { tables: [...tables.values()], table: tables, loadedAt: now };
}

/** Tables small or unknown enough that an exact count is cheap and worth more than a guess. */
export function tablesToCount(raw: RawCatalog, threshold: number): string[] {
  return raw.tables
    .filter(
      (t) => t.kind === 'table' && !isBookkeeping(t.name) && (t.rowEstimate === null || t.rowEstimate < threshold),
    )
    .map((t) => t.name);
}
