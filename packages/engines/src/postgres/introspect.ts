import { sql } from 'kysely';
import type { RawCatalog, RawColumn, RawForeignKey, RawTable } from '../catalog.js';
import type { AnyDb } from '../engine.js';
import { groupBy } from '../group-runs.js';
import { normalizeDefault, numericPrecision, portableType } from './types.js';

// Ordinary, partitioned and foreign tables; views and materialized views. Partitions are left
// out: their parent already shows their rows.
const RELATIONS = sql`c.relkind in ('r', 'p', 'f', 'v', 'm') and not c.relispartition`;
const IN_SCHEMA = sql`n.nspname = current_schema()`;

interface TableRow {
  name: string;
  relkind: string;
  reltuples: number;
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  ordinal: number;
  native_type: string;
  typname: string;
  typtype: string;
  typmod: number;
  nullable: boolean;
  default_expr: string | null;
  is_identity: boolean;
  is_generated: boolean;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  is_primary: boolean;
  is_unique: boolean;
  column_name: string | null;
  /** this key part of a whole-table B-tree, ascending with nulls last, in the column's own collation */
  ordered: boolean;
}

interface ForeignKeyRow {
  table_name: string;
  constraint_name: string;
  column_name: string;
  ref_table: string;
  ref_column: string;
}

/** Reads the current schema in four queries, whatever the number of tables. */
export async function introspect(db: AnyDb): Promise<RawCatalog> {
  const [tables, columns, indexes, foreignKeys] = await Promise.all([
    sql<TableRow>`
      select c.relname as name, c.relkind, c.reltuples
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where ${IN_SCHEMA} and ${RELATIONS}
      order by c.relname`.execute(db),
    // A domain reports its base type and its own type modifier and NOT NULL.
    sql<ColumnRow>`
      select c.relname as table_name, a.attname as column_name,
        row_number() over (partition by c.oid order by a.attnum)::int4 as ordinal,
        pg_catalog.format_type(a.atttypid, a.atttypmod) as native_type,
        coalesce(bt.typname, t.typname) as typname,
        coalesce(bt.typtype, t.typtype) as typtype,
        case when t.typtype = 'd' then t.typtypmod else a.atttypmod end as typmod,
        not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)) as nullable,
        pg_catalog.pg_get_expr(d.adbin, d.adrelid) as default_expr,
        a.attidentity <> '' as is_identity,
        a.attgenerated <> '' as is_generated
      from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_type t on t.oid = a.atttypid
      left join pg_catalog.pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
      left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where ${IN_SCHEMA} and ${RELATIONS} and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(db),
    // Key columns only (not INCLUDE ones); attnum 0 marks an expression, read as a null name.
    sql<IndexRow>`
      select c.relname as table_name, i.relname as index_name,
        x.indisprimary as is_primary,
        x.indisunique and x.indpred is null as is_unique,
        a.attname as column_name,
        am.amname = 'btree' and x.indpred is null and x.indoption[(k.position - 1)::int] = 0
          and x.indcollation[(k.position - 1)::int] = a.attcollation as ordered
      from pg_catalog.pg_index x
      join pg_catalog.pg_class c on c.oid = x.indrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_class i on i.oid = x.indexrelid
      join pg_catalog.pg_am am on am.oid = i.relam
      cross join lateral unnest(x.indkey::int2[]) with ordinality as k(attnum, position)
      left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
      where ${IN_SCHEMA} and ${RELATIONS} and x.indisvalid and k.position <= x.indnkeyatts
      order by c.relname, i.relname, k.position`.execute(db),
    // unnest pairs conkey[i] with confkey[i], which keeps multi-column keys matched.
    sql<ForeignKeyRow>`
      select c.relname as table_name, f.conname as constraint_name,
        a.attname as column_name, rc.relname as ref_table, ra.attname as ref_column
      from pg_catalog.pg_constraint f
      join pg_catalog.pg_class c on c.oid = f.conrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_class rc on rc.oid = f.confrelid
      join pg_catalog.pg_namespace rn on rn.oid = rc.relnamespace
      cross join lateral unnest(f.conkey, f.confkey) with ordinality as k(attnum, ref_attnum, position)
      join pg_catalog.pg_attribute a on a.attrelid = f.conrelid and a.attnum = k.attnum
      join pg_catalog.pg_attribute ra on ra.attrelid = f.confrelid and ra.attnum = k.ref_attnum
      where f.contype = 'f' and f.conparentid = 0 and ${IN_SCHEMA} and ${RELATIONS}
        and rn.nspname = current_schema()
      order by c.relname, f.conname, k.position`.execute(db),
  ]);

  const catalog: RawCatalog = {
    tables: tables.rows.map(toTable),
    columns: columns.rows.map(toColumn),
    primaryKeys: [],
    foreignKeys: [],
    indexes: [],
  };

  for (const index of groupBy(indexes.rows, (r) => `${r.table_name}\0${r.index_name}`)) {
    const first = index[0]!;
    const names = index.map((r) => r.column_name);
    if (names.some((name) => name === null)) continue; // an expression index
    const cols = names as string[];
    if (first.is_primary) catalog.primaryKeys.push({ table: first.table_name, columns: cols });
    else
      catalog.indexes.push({
        table: first.table_name,
        name: first.index_name,
        columns: cols,
        unique: first.is_unique,
        ordered: index.every((r) => r.ordered),
      });
  }

  for (const fk of groupBy(foreignKeys.rows, (r) => `${r.table_name}\0${r.constraint_name}`)) {
    const first = fk[0]!;
    catalog.foreignKeys.push({
      table: first.table_name,
      columns: fk.map((r) => r.column_name),
      refTable: first.ref_table,
      refColumns: fk.map((r) => r.ref_column),
    } satisfies RawForeignKey);
  }
  return catalog;
}

function toTable(row: TableRow): RawTable {
  const view = row.relkind === 'v' || row.relkind === 'm';
  return {
    name: row.name,
    kind: view ? 'view' : 'table',
    // -1 means never vacuumed or analyzed (PostgreSQL 14+); views have no estimate
    rowEstimate: view || row.reltuples < 0 ? null : Math.round(row.reltuples),
  };
}

function toColumn(row: ColumnRow): RawColumn {
  const serial = row.default_expr?.startsWith('nextval(') ?? false;
  const autoIncrement = row.is_identity || serial;
  return {
    table: row.table_name,
    name: row.column_name,
    ordinal: row.ordinal,
    nativeType: row.native_type.toLowerCase(),
    type: portableType(row.typname, row.typtype),
    ...numericPrecision(row.typname, row.typmod),
    nullable: row.nullable,
    // a generated column's expression is not a default a caller could rely on
    default: autoIncrement || row.is_generated ? null : normalizeDefault(row.default_expr),
    autoIncrement,
  };
}
