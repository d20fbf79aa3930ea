import type { Table } from '@mcp-db-bench/engines';

// The raw and per-table types live with the engines, which read them; the server caches the whole.
export type { Column, ForeignKey, RawCatalog, RawColumn, RawForeignKey, RawTable, Table } from '@mcp-db-bench/engines';

export interface Catalog {
  /** tables and views sorted by name */
  tables: Table[];
  table: ReadonlyMap<string, Table>;
  loadedAt: number;
}
