import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import { outsideCalls, throwIfAbandoned } from '../calls.js';
import type { AnyDb } from '../engine.js';
import { preparedStatement } from './prepared.js';
import { RESET_SESSION } from './session-reset.js';
import { requireMarkers } from './sql-guard.js';

/**
 * Ends the call on its connection: COM_RESET_CONNECTION rolls the transaction back and clears
 * what a rollback keeps (user variables, LAST_INSERT_ID, named locks, temporary tables, the row
 * cap and every other session setting), and the connection's own settings are applied again.
 * Nothing one `sql` call leaves is seen by the next caller of the connection, whatever the guard
 * missed or a stored function did out of its sight.
 */
const reset = () => CompiledQuery.raw('/* reset session */', RESET_SESSION as unknown[]);

/**
 * A caller's statement inside `start transaction read only`, on one connection, which is reset
 * afterwards; the server refuses writes to tables there. It is not wrapped as a subquery because
 * MariaDB ignores an ORDER BY in a derived table: `sql_select_limit` caps the rows instead.
 * It runs as a prepared statement (prepared.ts): one statement, whatever the text holds, and its
 * values bound by the server, never written into the text; as many as the `?` the server and the
 * guard read in it. The guard (sql-guard.ts) has refused version comments, files, locks,
 * assignments and unknown functions before it gets here.
 */
export async function readOnlyStatement(db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) {
  const { sql: text, parameters } = statement.compile(db);
  requireMarkers(text, parameters.length);
  return db.connection().execute(async (conn) => {
    await sql`start transaction read only`.execute(conn);
    try {
      await sql`set sql_select_limit = ${maxRows}`.execute(conn);
      throwIfAbandoned();
      const { rows } = await conn.executeQuery<Record<string, unknown>>(preparedStatement(text, parameters));
      return rows;
    } finally {
      // As no call's: a client leaving now must not cancel (KILL QUERY) the cleanup of a pooled
      // connection. One whose reset fails is closed (session-reset.ts), so the error is not the caller's.
      await outsideCalls(() => conn.executeQuery(reset())).catch(() => {});
    }
  });
}
