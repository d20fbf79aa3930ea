import { sql } from 'kysely';
import type { RawCatalog, RawColumn, RawTable } from '../catalog.js';
import type { AnyDb } from '../engine.js';
import { groupBy } from '../group-runs.js';
import { nativeTypeText, normalizeDefault, portableType } from './types.js';

// The caller's default schema: schema_id() without an argument is the id of schema_name().
// User tables and views only; sys.objects.type is char(2), and 'U' = 'U ' in T-SQL.
const OBJECTS = sql`o.schema_id = schema_id() and o.type in ('U', 'V') and o.is_ms_shipped = 0`;

// tedious returns bigint (and so sum() of rows, row_number()) as strings, hence Number().

interface TableRow {
  name: string;
  is_view: boolean;
  row_estimate: string | number | null;
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  ordinal: string | number;
  type_name: string;
  max_length: number;
  num_precision: number;
  num_scale: number;
  is_nullable: boolean;
  is_identity: boolean;
  is_computed: boolean;
  default_definition: string | null;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  is_primary_key: boolean;
  is_unique: boolean;
  has_filter: boolean;
  column_name: string;
  /** this key part of an unfiltered b-tree (not a memory-optimized hash index), ascending */
  ordered: boolean;
}

interface ForeignKeyRow {
  table_name: string;
  constraint_name: string;
  column_name: string;
  ref_table: string;
  ref_column: string;
}

/** Reads the caller's default schema in four queries, whatever the number of tables. */
export async function introspect(db: AnyDb): Promise<RawCatalog> {
  const [tables, columns, indexes, foreignKeys] = await Promise.all([
    // rows of the heap (index 0) or clustered index (1), summed over partitions
    sql<TableRow>`
      select o.name as name,
        cast(case when o.type = 'V' then 1 else 0 end as bit) as is_view,
        (select sum(p.rows) from sys.partitions p
          where p.object_id = o.object_id and p.index_id in (0, 1)) as row_estimate
      from sys.objects o
      where ${OBJECTS}
      order by o.name`.execute(db),
    // alias types report their base system type; CLR types (geometry, ...) keep their own name
    sql<ColumnRow>`
      select o.name as table_name, c.name as column_name,
        row_number() over (partition by c.object_id order by c.column_id) as ordinal,
        case when t.is_user_defined = 1 and t.is_assembly_type = 0
          then type_name(t.system_type_id) else t.name end as type_name,
        c.max_length as max_length, c.[precision] as num_precision, c.scale as num_scale,
        c.is_nullable as is_nullable, c.is_identity as is_identity,
        c.is_computed as is_computed, d.definition as default_definition
      from sys.columns c
      join sys.objects o on o.object_id = c.object_id
      join sys.types t on t.user_type_id = c.user_type_id
      left join sys.default_constraints d on d.object_id = c.default_object_id
      where ${OBJECTS}
      order by o.name, c.column_id`.execute(db),
    // b-tree and hash indexes (types 1, 2, 7), key columns only (included ones have key_ordinal 0)
    sql<IndexRow>`
      select o.name as table_name, i.name as index_name,
        i.is_primary_key as is_primary_key, i.is_unique as is_unique,
        i.has_filter as has_filter, c.name as column_name,
        cast(case when i.type in (1, 2) and i.has_filter = 0 and ic.is_descending_key = 0
          then 1 else 0 end as bit) as ordered
      from sys.indexes i
      join sys.objects o on o.object_id = i.object_id
      join sys.index_columns ic on ic.object_id = i.object_id and ic.index_id = i.index_id
      join sys.columns c on c.object_id = ic.object_id and c.column_id = ic.column_id
      where ${OBJECTS} and i.type in (1, 2, 7) and i.is_hypothetical = 0
        and i.is_disabled = 0 and ic.key_ordinal > 0
      order by o.name, i.name, ic.key_ordinal`.execute(db),
    // one row per column pair, in constraint order, so multi-column keys stay paired
    sql<ForeignKeyRow>`
      select o.name as table_name, fk.name as constraint_name, c.name as column_name,
        r.name as ref_table, rc.name as ref_column
      from sys.foreign_keys fk
      join sys.foreign_key_columns fkc on fkc.constraint_object_id = fk.object_id
      join sys.objects o on o.object_id = fk.parent_object_id
      join sys.columns c on c.object_id = fkc.parent_object_id and c.column_id = fkc.parent_column_id
      join sys.objects r on r.object_id = fk.referenced_object_id
      join sys.columns rc on rc.object_id = fkc.referenced_object_id
        and rc.column_id = fkc.referenced_column_id
      where ${OBJECTS} and r.schema_id = schema_id()
      order by o.name, fk.name, fkc.constraint_column_id`.execute(db),
  ]);

  const views = new Set(tables.rows.filter((t) => t.is_view).map((t) => t.name));
  const catalog: RawCatalog = {
    tables: tables.rows.map(toTable),
    columns: columns.rows.map((row) => toColumn(row, views)),
    primaryKeys: [],
    foreignKeys: [],
    indexes: [],
  };

  for (const index of groupBy(indexes.rows, (r) => `${r.table_name}\0${r.index_name}`)) {
    const first = index[0]!;
    const cols = index.map((r) => r.column_name);
    if (first.is_primary_key) catalog.primaryKeys.push({ table: first.table_name, columns: cols });
    else
      catalog.indexes.push({
        table: first.table_name,
        name: first.index_name,
        columns: cols,
        // a filtered unique index only guarantees uniqueness among the rows it covers
        unique: first.is_unique && !first.has_filter,
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
    });
  }
  return catalog;
}

function toTable(row: TableRow): RawTable {
  return {
    name: row.name,
    kind: row.is_view ? 'view' : 'table',
    rowEstimate: row.is_view || row.row_estimate === null ? null : Number(row.row_estimate),
  };
}

function toColumn(row: ColumnRow, views: ReadonlySet<string>): RawColumn {
  const type = portableType(row.type_name);
  // a view column over an identity column reports is_identity too; the view generates nothing
  const autoIncrement = row.is_identity && !views.has(row.table_name);
  const decimal = type === 'decimal';
  return {
    table: row.table_name,
    name: row.column_name,
    ordinal: Number(row.ordinal),
    nativeType: nativeTypeText(row.type_name, row.max_length, row.num_precision, row.num_scale),
    type,
    precision: decimal ? row.num_precision : null,
    scale: decimal ? row.num_scale : null,
    nullable: row.is_nullable,
    default: row.is_identity || row.is_computed ? null : normalizeDefault(row.default_definition),
    autoIncrement,
  };
}
