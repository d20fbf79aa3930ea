import { sql } from 'kysely';
import type { AnyDb, ExcessRights } from '../engine.js';

/** Global privileges that reach past the rows: FILE reads and writes the host's files, SUPER rules the server. */
const EXCESS = ['FILE', 'SUPER'] as const;

/**
 * The connecting account's global FILE and SUPER (granted directly; ALL PRIVILEGES ON *.* includes
 * both). information_schema.user_privileges names the account as `'user'@'host'`, and
 * current_user() as `user@host`.
 */
export async function excessRights(db: AnyDb): Promise<ExcessRights | undefined> {
  const { rows } = await sql<{ user: string; privilege: string }>`
    select current_user() as user, privilege_type as privilege from information_schema.user_privileges
    where grantee = concat('''', substring_index(current_user(), '@', 1), '''@''', substring_index(current_user(), '@', -1), '''')
      and privilege_type in (${sql.join(EXCESS.map((p) => sql.lit(p)))})`.execute(db);
  if (!rows.length) return undefined;
  return { user: rows[0]!.user, rights: EXCESS.filter((p) => rows.some((r) => r.privilege === p)) };
}

/** The placeholder the statements carry for the new login's password. */
export const PASSWORD_PLACEHOLDER = 'choose-a-password';

/** A name quoted as a string literal in account names (`'user'@'host'`). */
const quoted = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/**
 * An account, on the host pattern of the connecting one, that can read (and with `writes`,
 * change) the rows of the database the server serves, and nothing else: no FILE, no SUPER.
 */
export async function leastPrivilege(db: AnyDb, { login, writes }: { login: string; writes: boolean }) {
  const { rows } = await sql<{ database: string; account: string }>`
    select database() as \`database\`, current_user() as account`.execute(db);
  const { database, account } = rows[0]!;
  const host = account.slice(account.lastIndexOf('@') + 1);
  const user = `${quoted(login)}@${quoted(host)}`;
  const rights = writes ? 'SELECT, INSERT, UPDATE, DELETE' : 'SELECT';
  return [
    `CREATE USER ${user} IDENTIFIED BY '${PASSWORD_PLACEHOLDER}';`,
    `GRANT ${rights} ON \`${database.replaceAll('`', '``')}\`.* TO ${user};`,
  ];
}
