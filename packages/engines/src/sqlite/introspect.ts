import { sql } from 'kysely';
import type { RawCatalog, RawColumn } from '../catalog.js';
import type { AnyDb } from '../engine.js';
import { normalizeDefault, portableType } from './types.js';

const USER_OBJECTS = sql`select name, type, sql from sqlite_schema where type in ('table', 'view') and name not like 'sqlite_%'`;

/** Four queries over SQLite's table-valued pragmas, whatever the number of tables. */
export async function introspect(db: AnyDb): Promise<RawCatalog> {
  const [objects, columns, foreignKeys, indexColumns] = await Promise.all([
    sql<{ name: string; type: string; sql: string | null }>`${USER_OBJECTS} order by name`.execute(db),
    sql<{
      tbl: string;
      cid: bigint;
      name: string;
      type: string;
      notnull: bigint;
      dflt_value: string | null;
      pk: bigint;
    }>`
      select m.name as tbl, p.cid, p.name, p.type, p."notnull", p.dflt_value, p.pk
      from (${USER_OBJECTS}) m join pragma_table_info(m.name) p order by m.name, p.cid`.execute(db),
    sql<{ tbl: string; id: bigint; seq: bigint; ref: string; from: string; to: string | null }>`
      select m.name as tbl, f.id, f.seq, f."table" as ref, f."from", f."to"
      from (${USER_OBJECTS}) m join pragma_foreign_key_list(m.name) f order by m.name, f.id, f.seq`.execute(db),
    // key columns only (index_xinfo's others are the rowid or key it points at); `plain`: this
    // part ascending in BINARY order, in an index over every row (not partial)
    sql<{ tbl: string; idx: string; uniq: bigint; seqno: bigint; col: string | null; plain: bigint }>`
      select m.name as tbl, il.name as idx, il."unique" as uniq, ii.seqno, ii.name as col,
        (il.partial = 0 and ii."desc" = 0 and ii.coll = 'BINARY') as plain
      from (${USER_OBJECTS}) m join pragma_index_list(m.name) il join pragma_index_xinfo(il.name) ii
      where il.origin <> 'pk' and ii."key" = 1 order by m.name, il.name, ii.seqno`.execute(db),
  ]);

  const estimates = await rowEstimates(db);
  const raw: RawCatalog = {
    tables: objects.rows.map((o) => ({
      name: o.name,
      kind: o.type === 'view' ? 'view' : 'table',
      rowEstimate: estimates.get(o.name) ?? null,
    })),
    columns: [],
    primaryKeys: [],
    foreignKeys: [],
    indexes: [],
  };

  const pk = new Map<string, { col: string; pos: number; type: string }[]>();
  for (const c of columns.rows) {
    const mapped = portableType(c.type);
    const column: RawColumn = {
      table: c.tbl,
      name: c.name,
      ordinal: Number(c.cid) + 1,
      nativeType: c.type.toLowerCase(),
      ...mapped,
      nullable: c.notnull === 0n && c.pk === 0n,
      default: normalizeDefault(c.dflt_value),
      autoIncrement: false,
    };
    raw.columns.push(column);
    if (c.pk > 0n) pk.set(c.tbl, [...(pk.get(c.tbl) ?? []), { col: c.name, pos: Number(c.pk), type: c.type }]);
  }
  for (const [table, cols] of pk) {
    cols.sort((a, b) => a.pos - b.pos);
    raw.primaryKeys.push({ table, columns: cols.map((c) => c.col) });
    // Any INTEGER PRIMARY KEY is the rowid, but only AUTOINCREMENT promises what serial and
    // identity columns do elsewhere (never reusing a key), so only that one is reported.
    const ddl = objects.rows.find((o) => o.name === table)?.sql ?? '';
    if (cols.length === 1 && cols[0]!.type.toUpperCase() === 'INTEGER' && /\bautoincrement\b/i.test(ddl)) {
      const column = raw.columns.find((c) => c.table === table && c.name === cols[0]!.col)!;
      column.autoIncrement = true;
    }
  }

  const fks = new Map<string, { table: string; ref: string; from: string[]; to: (string | null)[] }>();
  for (const f of foreignKeys.rows) {
    const key = `${f.tbl}\u0000${f.id}`;
    const fk = fks.get(key) ?? { table: f.tbl, ref: f.ref, from: [], to: [] };
    fk.from.push(f.from);
    fk.to.push(f.to);
    fks.set(key, fk);
  }
  for (const fk of fks.values()) {
    // `references parent` without columns means the parent's primary key.
    const refPk = raw.primaryKeys.find((p) => p.table === fk.ref)?.columns ?? [];
    raw.foreignKeys.push({
      table: fk.table,
      columns: fk.from,
      refTable: fk.ref,
      refColumns: fk.to.map((t, i) => t ?? refPk[i] ?? ''),
    });
  }

  const idx = new Map<string, RawCatalog['indexes'][number]>();
  for (const r of indexColumns.rows) {
    const entry = idx.get(r.idx) ?? { table: r.tbl, name: r.idx, columns: [], unique: r.uniq === 1n, ordered: true };
    entry.columns.push(r.col ?? '(expression)');
    // an expression, or a part in another collation than BINARY: the pragmas do not say a
    // column's own collation, so such an index is taken as not in the order ORDER BY gives
    entry.ordered &&= r.col !== null && r.plain === 1n;
    idx.set(r.idx, entry);
  }
  raw.indexes = [...idx.values()];
  return raw;
}

/** Row counts from ANALYZE statistics when present; tables without them are counted exactly. */
async function rowEstimates(db: AnyDb): Promise<Map<string, number>> {
  const hasStats = await sql<{
    n: bigint;
  }>`select count(*) as n from sqlite_schema where name = 'sqlite_stat1'`.execute(db);
  if (hasStats.rows[0]?.n === 0n) return new Map();
  const stats = await sql<{ tbl: string; stat: string }>`select tbl, stat from sqlite_stat1`.execute(db);
  return new Map(stats.rows.map((s) => [s.tbl, Number.parseInt(s.stat, 10)]));
}
