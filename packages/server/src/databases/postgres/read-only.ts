import { type RawBuilder, sql } from 'kysely';
import { outsideCalls, throwIfAbandoned } from '../calls.js';
import type { AnyDb } from '../engine.js';

/**
 * A caller's statement inside `begin read only` ... `rollback`. Wrapping it as a subquery
 * makes anything but a query a syntax error, and the limit parameter makes pg use the
 * extended protocol, which refuses a second statement hidden after a `;`. Even settings the
 * statement changes (set_config) are undone by the rollback.
 */
export async function readOnlyStatement(db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) {
  const trx = await db.startTransaction().setAccessMode('read only').execute();
  try {
    throwIfAbandoned();
    const { rows } = await sql<Record<string, unknown>>`select * from (${statement}) as q limit ${maxRows}`.execute(trx);
    return rows;
  } finally {
    // As no call's: a client leaving now must not cancel the cleanup of a pooled connection.
    await outsideCalls(() => trx.rollback().execute());
  }
}
