import { sql } from 'kysely';
import type { AnyDb, ExcessRights } from '../engine.js';

/** Membership of sysadmin (or CONTROL SERVER, its equal): the login can do anything on the instance. */
export async function excessRights(db: AnyDb): Promise<ExcessRights | undefined> {
  const { rows } = await sql<{ login: string; sysadmin: number | null; control: number | null }>`
    select suser_sname() as login, is_srvrolemember('sysadmin') as sysadmin,
      has_perms_by_name(null, null, 'CONTROL SERVER') as control`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const rights = [
    ...(row.sysadmin === 1 ? ['sysadmin'] : []),
    ...(row.control === 1 && row.sysadmin !== 1 ? ['CONTROL SERVER'] : []),
  ];
  return rights.length ? { user: row.login, rights } : undefined;
}
