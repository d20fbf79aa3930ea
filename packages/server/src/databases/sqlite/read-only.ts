import { type RawBuilder, sql } from 'kysely';
import type { AnyDb } from '../engine.js';

/**
 * A caller's statement with `query_only` on, which makes SQLite refuse any change to the
 * database. better-sqlite3 prepares exactly one statement, so nothing hides after a `;`.
 */
export async function readOnlyStatement(db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) {
  return db.connection().execute(async (conn) => {
    await sql`pragma query_only = on`.execute(conn);
    try {
      const { rows } = await sql<Record<string, unknown>>`select * from (${statement}) limit ${maxRows}`.execute(conn);
      return rows;
    } finally {
      await sql`pragma query_only = off`.execute(conn);
    }
  });
}
