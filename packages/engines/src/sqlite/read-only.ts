import { type RawBuilder, sql } from 'kysely';
import type { AnyDb } from '../engine.js';

/** Where a database's caller-written SQL runs: its pool of read-only processes (sql-process.ts). */
const readers = new WeakMap<AnyDb, AnyDb>();

/** Gives `db`'s caller-written SQL the killable, read-only processes of `reader` (which may be `db` itself). */
export function useReader(db: AnyDb, reader: AnyDb): void {
  readers.set(db, reader);
}

/**
 * A caller's statement where SQLite itself refuses writes: in a process that opened the file
 * read-only (a memory database has no file to share: there, with `query_only` on).
 * better-sqlite3 prepares exactly one statement, so nothing hides after a `;`.
 */
export async function readOnlyStatement(db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) {
  const capped = sql<Record<string, unknown>>`select * from (${statement}) limit ${maxRows}`;
  const reader = readers.get(db);
  if (reader) return (await capped.execute(reader)).rows;
  return db.connection().execute(async (conn) => {
    await sql`pragma query_only = on`.execute(conn);
    try {
      return (await capped.execute(conn)).rows;
    } finally {
      await sql`pragma query_only = off`.execute(conn);
    }
  });
}
