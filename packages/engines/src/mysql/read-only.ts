import { type RawBuilder, sql } from 'kysely';
import { outsideCalls, throwIfAbandoned } from '../calls.js';
import type { AnyDb } from '../engine.js';

/**
 * Resets the row cap to the server's default (what `= default` does for a session variable) and,
 * in the same statement so at no extra round trip, releases the connection's named locks, which a
 * rollback keeps. The guard refuses GET_LOCK by name; this catches one taken out of its sight, in
 * a stored function. RELEASE_ALL_LOCKS needs MySQL 5.7 or MariaDB 10.5; older servers reset alone.
 */
const RESET_AND_UNLOCK = sql`set sql_select_limit = if(release_all_locks() >= 0, @@global.sql_select_limit, @@global.sql_select_limit)`;

/**
 * A caller's statement inside `start transaction read only` ... `rollback`; the server
 * refuses writes to tables there. It is not wrapped as a subquery because MariaDB ignores an
 * ORDER BY in a derived table: `sql_select_limit` caps the rows instead. mysql2 sends one
 * statement (multipleStatements stays off); the guard (sql-guard.ts) has refused version comments,
 * files and locks before it gets here.
 */
export async function readOnlyStatement(db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) {
  const trx = await db.startTransaction().setAccessMode('read only').execute();
  let failed = true;
  try {
    await sql`set sql_select_limit = ${maxRows}`.execute(trx);
    throwIfAbandoned();
    const { rows } = await sql<Record<string, unknown>>`${statement}`.execute(trx);
    failed = false;
    return rows;
  } finally {
    // As no call's: a client leaving now must not cancel (KILL QUERY) the cleanup of a pooled connection.
    // When the statement failed, its error is the call's, even if the connection it broke cannot roll back.
    await outsideCalls(async () => {
      await RESET_AND_UNLOCK.execute(trx)
        .catch(() => sql`set sql_select_limit = default`.execute(trx))
        .catch(() => {});
      await trx.rollback().execute();
    }).catch((error: unknown) => {
      if (!failed) throw error;
    });
  }
}
