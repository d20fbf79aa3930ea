import { type RawBuilder, sql } from 'kysely';
import type { AnyDb } from './engine.js';

/** `explain STATEMENT`: PostgreSQL, MySQL, MariaDB and SQLite plan it (parameters bound) and run none of it. */
export async function explainStatement(db: AnyDb, statement: RawBuilder<unknown>): Promise<void> {
  await sql`explain ${statement}`.execute(db);
}
