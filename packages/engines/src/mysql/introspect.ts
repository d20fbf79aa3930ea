import { sql } from 'kysely';
import type { RawCatalog, RawColumn, RawTable } from '../catalog.js';
import type { AnyDb } from '../engine.js';
import { groupBy } from '../group-runs.js';
import { normalizeDefault, portableType } from './types.js';

// information_schema columns are aliased in lower case: MySQL 8 otherwise returns them in upper
// case. Its BIGINT UNSIGNED counters arrive as strings (bigNumberStrings), hence num().

interface TableRow {
  table_name: string;
  table_type: string;
  table_rows: number | string | null;
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  ordinal: number | string;
  data_type: string;
  column_type: string;
  numeric_precision: number | string | null;
  numeric_scale: number | string | null;
  is_nullable: string;
  column_default: string | null;
  extra: string;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  non_unique: number | string;
  column_name: string | null;
  index_type: string;
  /** the indexed prefix's length, when only a prefix of the value is indexed */
  sub_part: number | string | null;
  /** `A` ascending, `D` descending, null not sorted */
  collation: string | null;
}

interface ForeignKeyRow {
  table_name: string;
  constraint_name: string;
  column_name: string;
  ref_table: string;
  ref_column: string;
}

interface CheckRow {
  table_name: string;
  check_clause: string;
}

const JSON_CHECK = /^json_valid\(`((?:[^`]|``)+)`\)$/i;

/**
 * Reads the current database (`DATABASE()`): one query for the server flavour, then one per
 * kind of fact, run together.
 */
export async function introspect(db: AnyDb): Promise<RawCatalog> {
  const { rows: version } = await sql<{ version: string }>`select version() as version`.execute(db);
  const mariadb = /mariadb/i.test(version[0]?.version ?? '');

  const [tables, columns, indexes, foreignKeys, checks] = await Promise.all([
    // MariaDB calls a system-versioned table neither 'BASE TABLE' nor 'VIEW'; sequences are left out
    sql<TableRow>`
      select table_name as table_name, table_type as table_type, table_rows as table_rows
      from information_schema.tables
      where table_schema = database()
        and table_type in ('BASE TABLE', 'SYSTEM VERSIONED', 'VIEW')
      order by table_name`.execute(db),
    sql<ColumnRow>`
      select table_name as table_name, column_name as column_name,
        ordinal_position as ordinal, data_type as data_type, column_type as column_type,
        numeric_precision as numeric_precision, numeric_scale as numeric_scale,
        is_nullable as is_nullable, column_default as column_default, extra as extra
      from information_schema.columns
      where table_schema = database()
      order by table_name, ordinal_position`.execute(db),
    // the primary key is the index named PRIMARY; functional key parts have no column name
    sql<IndexRow>`
      select table_name as table_name, index_name as index_name,
        non_unique as non_unique, column_name as column_name,
        index_type as index_type, sub_part as sub_part, collation as collation
      from information_schema.statistics
      where table_schema = database()
      order by table_name, index_name, seq_in_index`.execute(db),
    // one row per column pair, in constraint order, so multi-column keys stay paired
    sql<ForeignKeyRow>`
      select table_name as table_name, constraint_name as constraint_name,
        column_name as column_name, referenced_table_name as ref_table,
        referenced_column_name as ref_column
      from information_schema.key_column_usage
      where table_schema = database() and referenced_table_schema = database()
        and referenced_table_name is not null
      order by table_name, constraint_name, ordinal_position`.execute(db),
    // MariaDB's JSON is LONGTEXT plus a json_valid() check named after the column
    mariadb
      ? sql<CheckRow>`
          select table_name as table_name, check_clause as check_clause
          from information_schema.check_constraints
          where constraint_schema = database() and check_clause like 'json_valid(%'`.execute(db)
      : Promise.resolve({ rows: [] as CheckRow[] }),
  ]);

  const known = new Set(tables.rows.map((t) => str(t.table_name)));
  const views = new Set(tables.rows.filter((t) => str(t.table_type) === 'VIEW').map((t) => str(t.table_name)));
  const jsonColumns = new Set<string>();
  for (const check of checks.rows) {
    const column = JSON_CHECK.exec(str(check.check_clause))?.[1]?.replaceAll('``', '`');
    if (column !== undefined) jsonColumns.add(`${str(check.table_name)}\0${column}`);
  }

  const catalog: RawCatalog = {
    tables: tables.rows.map(toTable),
    columns: columns.rows
      .filter((c) => known.has(str(c.table_name)))
      .map((c) => toColumn(c, mariadb, jsonColumns, views)),
    primaryKeys: [],
    foreignKeys: [],
    indexes: [],
  };

  for (const index of groupBy(indexes.rows, (r) => `${str(r.table_name)}\0${str(r.index_name)}`)) {
    const first = index[0]!;
    const table = str(first.table_name);
    if (!known.has(table) || index.some((r) => r.column_name === null)) continue;
    const cols = index.map((r) => str(r.column_name));
    const name = str(first.index_name);
    if (name === 'PRIMARY') catalog.primaryKeys.push({ table, columns: cols });
    else
      catalog.indexes.push({
        table,
        name,
        columns: cols,
        unique: num(first.non_unique) === 0,
        ordered: ordered(index),
      });
  }

  for (const fk of groupBy(foreignKeys.rows, (r) => `${str(r.table_name)}\0${str(r.constraint_name)}`)) {
    const first = fk[0]!;
    catalog.foreignKeys.push({
      table: str(first.table_name),
      columns: fk.map((r) => str(r.column_name)),
      refTable: str(first.ref_table),
      refColumns: fk.map((r) => str(r.ref_column)),
    });
  }
  return catalog;
}

/** A B-tree over whole values, every part ascending (no `FULLTEXT`, `SPATIAL`, `HASH`, prefix or descending part). */
function ordered(parts: readonly IndexRow[]): boolean {
  return parts.every((p) => str(p.index_type) === 'BTREE' && p.sub_part === null && p.collation === 'A');
}

function toTable(row: TableRow): RawTable {
  const view = str(row.table_type) === 'VIEW';
  return {
    name: str(row.table_name),
    kind: view ? 'view' : 'table',
    rowEstimate: view || row.table_rows === null ? null : num(row.table_rows),
  };
}

function toColumn(
  row: ColumnRow,
  mariadb: boolean,
  jsonColumns: ReadonlySet<string>,
  views: ReadonlySet<string>,
): RawColumn {
  const table = str(row.table_name);
  const view = views.has(table);
  const name = str(row.column_name);
  const nativeType = str(row.column_type).toLowerCase();
  const type = portableType(str(row.data_type), nativeType, jsonColumns.has(`${table}\0${name}`));
  const extra = str(row.extra).toLowerCase();
  const autoIncrement = !view && extra.includes('auto_increment');
  const generated = /\b(?:virtual|stored|persistent) generated\b/.test(extra);
  const decimal = type === 'decimal';
  return {
    table,
    name,
    ordinal: num(row.ordinal),
    nativeType,
    type,
    precision: decimal && row.numeric_precision !== null ? num(row.numeric_precision) : null,
    scale: decimal && row.numeric_scale !== null ? num(row.numeric_scale) : null,
    nullable: str(row.is_nullable) === 'YES',
    // a view column echoes its base column's default, or MariaDB's implicit '0' for NOT NULL
    // expressions: neither is a default of the view
    default: view || autoIncrement || generated ? null : normalizeDefault(nullableStr(row.column_default), mariadb),
    autoIncrement,
  };
}

/** Some MySQL 8 information_schema columns are binary strings; mysql2 hands those over as Buffers. */
function str(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

function nullableStr(value: unknown): string | null {
  return value === null || value === undefined ? null : str(value);
}

function num(value: unknown): number {
  return Number(str(value));
}
