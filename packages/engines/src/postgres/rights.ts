import { sql } from 'kysely';
import type { AnyDb, ExcessRights } from '../engine.js';
import { SUGGESTED_TEMP_FILE_LIMIT } from './temp-files.js';

/** Roles that reach the database host: read or write its files, run its programs (PostgreSQL 11+). */
const HOST_ROLES = ['pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program'] as const;

/**
 * Superuser, or membership (direct or inherited) of a role that reaches the host's files and
 * programs: more than a server that reads rows needs. A superuser counts as a member of every
 * role, so superuser alone is named.
 */
export async function excessRights(db: AnyDb): Promise<ExcessRights | undefined> {
  const memberships = HOST_ROLES.map(
    (role) => sql<boolean>`pg_catalog.pg_has_role(current_user, ${sql.lit(role)}, 'member') as ${sql.ref(role)}`,
  );
  const { rows } = await sql<Record<string, unknown>>`
    select current_user as "user", rolsuper as superuser, ${sql.join(memberships)}
    from pg_catalog.pg_roles where rolname = current_user`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const rights = row.superuser === true ? ['superuser'] : HOST_ROLES.filter((role) => row[role] === true);
  return rights.length ? { user: String(row.user), rights } : undefined;
}

/** The placeholder the statements carry for the new login's password. */
export const PASSWORD_PLACEHOLDER = 'choose-a-password';

/**
 * A login that can read (and with `writes`, change) the tables of the schema the server serves
 * (current_schema(), as introspect.ts reads it), and nothing else: no superuser, no server-file
 * role, and a bound on the temporary files its statements write. Tables created later need the same GRANT again (or ALTER DEFAULT PRIVILEGES by their owner).
 */
export async function leastPrivilege(db: AnyDb, { login, writes }: { login: string; writes: boolean }) {
  const { rows } = await sql<{ database: string; schema: string; login: string }>`
    select quote_ident(current_database()) as database, quote_ident(current_schema()) as schema,
      quote_ident(${login}) as login`.execute(db);
  const { database, schema, login: role } = rows[0]!;
  const rights = writes ? 'SELECT, INSERT, UPDATE, DELETE' : 'SELECT';
  return [
    `CREATE ROLE ${role} LOGIN PASSWORD '${PASSWORD_PLACEHOLDER}';`,
    `GRANT CONNECT ON DATABASE ${database} TO ${role};`,
    `GRANT USAGE ON SCHEMA ${schema} TO ${role};`,
    `GRANT ${rights} ON ALL TABLES IN SCHEMA ${schema} TO ${role};`,
    // identity and serial columns draw from sequences
    ...(writes ? [`GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role};`] : []),
    // what a statement may spill to the host's disk (temp-files.ts)
    `ALTER ROLE ${role} SET temp_file_limit = '${SUGGESTED_TEMP_FILE_LIMIT}';`,
  ];
}
