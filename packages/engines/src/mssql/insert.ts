import { sql } from 'kysely';
import type { AnyDb } from '../engine.js';

/**
 * SQL Server reads keys back with `output inserted.k`; one row per statement, since the
 * order of output rows of a multi-row insert is not promised.
 */
export async function insertReturningKeys(
  db: AnyDb,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  key: readonly string[],
) {
  const keys: Record<string, unknown>[] = [];
  const output = sql.join(key.map((k) => sql`inserted.${sql.id(k)}`));
  for (const row of rows) {
    const { rows: returned } = await sql<
      Record<string, unknown>
    >`insert into ${sql.id(table)} (${sql.join(columns.map((c) => sql.id(c)))}) output ${output} values (${sql.join(row)})`.execute(
      db,
    );
    keys.push(...returned);
  }
  return keys;
}
