import type { Connection, SqlFamily } from '@mcp-db-bench/server/databases';
import type { RawBuilder } from 'kysely';
import type { Row } from '../generate.js';
import type { DatasetColumn, DatasetTable } from '../schema.js';

/**
 * One family's bulk path. Each family's file says how its columns are declared and how rows
 * reach the table fastest (COPY, LOAD DATA, a prepared statement in one transaction, batches).
 */
export interface Loader {
  readonly family: SqlFamily;
  /** the column's type in CREATE TABLE */
  columnType(column: DatasetColumn): string;
  /**
   * Whether foreign keys are declared in CREATE TABLE (and the load runs with checks off) or
   * added after loading, when one validating pass is cheaper than a check per row.
   */
  readonly foreignKeys: 'inline' | 'after';
  /**
   * Adds a table's foreign-key constraints after loading, when `foreignKeys` is 'after'.
   * Default: one ALTER TABLE per constraint.
   */
  addForeignKeys?(connection: Connection, table: DatasetTable, constraints: RawBuilder<unknown>[]): Promise<void>;
  /** Streams every row of a table in; `rows` yields batches lazily; `progress` gets row counts. */
  load(connection: Connection, table: DatasetTable, rows: Iterable<Row[]>, progress: (rows: number) => void): Promise<void>;
  /** Statements that refresh the planner's statistics after a load. */
  analyze(table: string): string[];
  /** Drops an index if it exists. */
  dropIndex(name: string, table: string): string;
}
