import type { AnyDb } from '../engine.js';
import { insertStatement } from '../returning.js';

/**
 * MySQL has no `returning`: insert one row at a time and read the generated value from the
 * OK packet's insert id. Key columns the caller gave come from the row itself; the one it
 * left out is the AUTO_INCREMENT column (a table has at most one).
 */
export async function insertReturningKeys(
  db: AnyDb,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  key: readonly string[],
) {
  const keys: Record<string, unknown>[] = [];
  for (const row of rows) {
    const { insertId } = await insertStatement(table, columns, [row]).execute(db);
    keys.push(Object.fromEntries(key.map((k) => [k, columns.includes(k) ? row[columns.indexOf(k)] : insertId])));
  }
  return keys;
}
