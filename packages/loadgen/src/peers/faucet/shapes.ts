/** Faucet's answers as its source shapes them, what the profile knows of a table, and Faucet's limits. */

export type Row = Record<string, unknown>;

/** faucet_list_tables: one entry a table or view (handleListTables). */
export interface FaucetTableSummary {
  name: string;
  type: string;
  /** omitted when the connector does not fill it (its SQLite, PostgreSQL and MySQL connectors do not) */
  row_count?: number;
}

/** faucet_describe_table: model.TableSchema; Go sends a nil slice as null. */
export interface FaucetTableSchema {
  name: string;
  type?: string;
  columns: FaucetColumn[] | null;
  primary_key: string[] | null;
  foreign_keys: FaucetForeignKey[] | null;
  indexes: { columns: string[] | null; is_unique: boolean }[] | null;
  row_count?: number;
}

interface FaucetColumn {
  name: string;
  db_type: string;
  nullable: boolean;
  default?: string;
  is_primary_key: boolean;
  is_auto_increment: boolean;
}

/** One column a foreign key: Faucet's introspection sends a composite key as one entry per column. */
interface FaucetForeignKey {
  column_name: string;
  referenced_table: string;
  referenced_column: string;
}

/** A table as the profile knows it from discovery: only these names ever reach Faucet. */
export interface Known {
  name: string;
  kind: 'table' | 'view';
  rows: number | null;
  schema: FaucetTableSchema;
  columns: string[];
  names: ReadonlySet<string>;
  /** columns of a numeric type: a number our filter carries as a string goes to Faucet as a number */
  numeric: ReadonlySet<string>;
  pk: string[];
}

/** faucet_query's cap (`clamp(limit, 1, 1000)`); its default of 25 is never relied on. */
export const PAGE = 1000;
export const DEFAULT_LIMIT = 100;
export const CURSOR = /^faucet:(\d+)$/;
/** Drivers whose connector has RETURNING, so faucet_insert answers the inserted rows (SupportsReturning). */
export const RETURNING_DRIVERS = new Set(['sqlite', 'postgres']);
export const WRITE_TOOLS = [
  ['insert', 'faucet_insert'],
  ['update', 'faucet_update'],
  ['delete', 'faucet_delete'],
] as const;
/** A row changed by someone else between its read and its compare-and-set write: tries before giving up. */
export const CAS_TRIES = 5;
