import { type RawBuilder, sql } from 'kysely';
import type { AnyDb } from './engine.js';

type Insert = (
  db: AnyDb,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  key: readonly string[],
) => Promise<Record<string, unknown>[]>;

/** `insert into t (a, b) values (?, ?), ...` without the clause that reads keys back. */
export function insertStatement(
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
): RawBuilder<unknown> {
  const values = rows.map((row) => sql`(${sql.join(row)})`);
  return sql`insert into ${sql.id(table)} (${sql.join(columns.map((c) => sql.id(c)))}) values ${sql.join(values)}`;
}

/**
 * `insert ... returning key`: PostgreSQL, SQLite and MariaDB. `rowsPerStatement` is 1 where
 * the engine does not promise that returned rows follow the order of the values.
 */
export function insertReturning(rowsPerStatement = Number.POSITIVE_INFINITY): Insert {
  return async (db, table, columns, rows, key) => {
    const keys: Record<string, unknown>[] = [];
    for (let i = 0; i < rows.length; i += rowsPerStatement) {
      const chunk = rows.slice(i, i + rowsPerStatement);
      const { rows: returned } = await sql<
        Record<string, unknown>
      >`${insertStatement(table, columns, chunk)} returning ${sql.join(key.map((k) => sql.id(k)))}`.execute(db);
      keys.push(...returned);
    }
    return keys;
  };
}
