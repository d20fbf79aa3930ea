import { type RawBuilder, sql } from 'kysely';
import { outsideCalls, throwIfAbandoned } from '../calls.js';
import type { AnyDb } from '../engine.js';

/**
 * How a read-only statement ends on PostgreSQL: the rollback, and in the same message (the simple
 * protocol runs both, so it costs no round trip) the release of any session advisory lock, which a
 * rollback keeps. The guard refuses pg_advisory_lock by name; this catches one taken out of its
 * sight, in a function the database defines.
 */
const END_AND_UNLOCK = sql.raw('rollback; select pg_catalog.pg_advisory_unlock_all()');

/**
 * A caller's statement inside `begin read only` ... `rollback`, on one connection, ended by the
 * statements `end`, in turn.
 * Wrapping it as a subquery makes anything but a query a syntax error, and the limit parameter
 * makes pg use the extended protocol, which refuses a second statement hidden after a `;`. Even
 * settings the statement changes are undone by the rollback.
 */
export function readOnlyRunner(...end: RawBuilder<unknown>[]) {
  return (db: AnyDb, statement: RawBuilder<unknown>, maxRows: number): Promise<Record<string, unknown>[]> =>
    db.connection().execute(async (conn) => {
      await sql`begin read only`.execute(conn);
      let failed = true;
      try {
        throwIfAbandoned();
        const { rows } = await sql<Record<string, unknown>>`select * from (${statement}) as q limit ${maxRows}`.execute(
          conn,
        );
        failed = false;
        return rows;
      } finally {
        // As no call's: a client leaving now must not cancel the cleanup of a pooled connection. When
        // the statement failed, its error is the call's, even if the connection it broke cannot roll back.
        await outsideCalls(async () => {
          for (const statement of end) await statement.execute(conn);
        }).catch((error: unknown) => {
          if (!failed) throw error;
        });
      }
    });
}

export const readOnlyStatement = readOnlyRunner(END_AND_UNLOCK);
