import type { PortableType } from '@mcp-db-bench/contract';

/** What an engine's introspection reports; the server's `buildCatalog` turns it into its cached catalog. */
export interface RawCatalog {
  tables: RawTable[];
  columns: RawColumn[];
  /** primary key columns in key order */
  primaryKeys: { table: string; columns: string[] }[];
  foreignKeys: RawForeignKey[];
  /** secondary indexes and unique constraints, without the primary key's own index */
  indexes: RawIndex[];
}

export interface RawIndex {
  table: string;
  name: string;
  columns: string[];
  unique: boolean;
  /**
   * Whether the index holds every row in ascending order of its columns' whole values, compared
   * as the columns themselves compare: a plain B-tree, no predicate (partial, filtered), no
   * descending or prefix part, no collation of its own. Only such an index can hand rows over in
   * the order `query` gives when it is not told one (see the server's query/index-order.ts).
   */
  ordered: boolean;
}

export interface RawTable {
  name: string;
  kind: 'table' | 'view';
  /** the engine's row estimate, or null when it has none */
  rowEstimate: number | null;
}

export interface RawColumn {
  table: string;
  name: string;
  /** 1-based position in the table */
  ordinal: number;
  /** the engine's own type name, lower case, with length/precision when the engine reports it */
  nativeType: string;
  type: PortableType;
  precision: number | null;
  scale: number | null;
  nullable: boolean;
  /** normalised default: literal text, `CURRENT_TIMESTAMP`, or the engine's expression text */
  default: string | null;
  autoIncrement: boolean;
}

export interface RawForeignKey {
  table: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
}

export interface Column extends Omit<RawColumn, 'table' | 'ordinal'> {}

export interface ForeignKey {
  columns: string[];
  table: string;
  references: string[];
}

export interface Table {
  name: string;
  kind: 'table' | 'view';
  /** exact count for small tables, estimate for large ones, null for views */
  rows: number | null;
  columns: Column[];
  column: ReadonlyMap<string, Column>;
  /** empty for views and key-less tables; then rows are ordered by every column */
  primaryKey: string[];
  foreignKeys: ForeignKey[];
  referencedBy: ForeignKey[];
  indexes: { columns: string[]; unique: boolean; ordered: boolean }[];
}
