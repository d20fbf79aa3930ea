import { type RawBuilder, sql } from 'kysely';
import type { AnyDb } from '../engine.js';
import type { SqlProcess } from './sql-process.js';

const processes = new WeakMap<AnyDb, SqlProcess>();

/** Gives a database file's caller-written SQL its own killable, read-only process. */
export function useSqlProcess(db: AnyDb, process: SqlProcess): void {
  processes.set(db, process);
}

/**
 * A caller's statement where SQLite itself refuses writes: in a process that opened the file
 * read-only (a memory database has no file to share: there, with `query_only` on).
 * better-sqlite3 prepares exactly one statement, so nothing hides after a `;`.
 */
export async function readOnlyStatement(db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) {
  const capped = sql<Record<string, unknown>>`select * from (${statement}) limit ${maxRows}`;
  const process = processes.get(db);
  if (process) {
    const { sql: text, parameters } = capped.compile(db);
    return process.run(text, parameters);
  }
  return db.connection().execute(async (conn) => {
    await sql`pragma query_only = on`.execute(conn);
    try {
      return (await capped.execute(conn)).rows;
    } finally {
      await sql`pragma query_only = off`.execute(conn);
    }
  });
}
