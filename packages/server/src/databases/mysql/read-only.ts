import { ToolError } from '@mcp-db-bench/contract';
import { type RawBuilder, sql } from 'kysely';
import { outsideCalls, throwIfAbandoned } from '../calls.js';
import type { AnyDb } from '../engine.js';

/**
 * A caller's statement inside `start transaction read only` ... `rollback`; the server
 * refuses writes to tables there. It is not wrapped as a subquery because MariaDB ignores an
 * ORDER BY in a derived table: `sql_select_limit` caps the rows instead. mysql2 sends one
 * statement (multipleStatements stays off), and version comments (`/*! ... *\/`), which the
 * server runs as code, are refused.
 */
export async function readOnlyStatement(db: AnyDb, statement: RawBuilder<unknown>, maxRows: number) {
  const text = statement.compile(db).sql;
  if (/\/\*M?!/.test(text)) throw new ToolError('invalid_argument', 'sql: executable comments (/*! ... */) are not allowed');
  const trx = await db.startTransaction().setAccessMode('read only').execute();
  try {
    await sql`set sql_select_limit = ${maxRows}`.execute(trx);
    throwIfAbandoned();
    const { rows } = await sql<Record<string, unknown>>`${statement}`.execute(trx);
    return rows;
  } finally {
    // As no call's: a client leaving now must not cancel (KILL QUERY) the cleanup of a pooled connection.
    await outsideCalls(async () => {
      await sql`set sql_select_limit = default`.execute(trx).catch(() => {});
      await trx.rollback().execute();
    });
  }
}
