import { sql } from 'kysely';
import type { AnyDb } from '../engine.js';

/** The bound suggested for the sql tool's login: room for the sorts and hashes an agent's query spills. */
export const SUGGESTED_TEMP_FILE_LIMIT = '1GB';

/**
 * What the sql tool's sessions can do that only the database's settings bound. A sort, a hash or
 * a function's result in FROM that outgrows work_mem spills to temporary files on the database
 * host, and nothing but temp_file_limit bounds them: `select count(*) from generate_series(1,
 * 1e10)` wrote about 300 MB a second here until the statement timeout, so a read-only server's
 * sql pool could write tens of GB at once (a full disk stops the database's writes). Only a
 * superuser (or a role granted SET on it) may set temp_file_limit; set on the login's role, it
 * applies at login and the session cannot lift it.
 */
export async function sqlWarnings(db: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ login: string; limit: string }>`
    select quote_ident(session_user) as login, current_setting('temp_file_limit') as limit`.execute(db);
  const row = rows[0];
  if (row?.limit !== '-1') return [];
  return [
    `the sql tool's statements may write temporary files on the database host without limit (temp_file_limit is -1): ` +
      `one statement writes hundreds of MB a second until its time limit; as an administrator, run ` +
      `ALTER ROLE ${row.login} SET temp_file_limit = '${SUGGESTED_TEMP_FILE_LIMIT}'`,
  ];
}
