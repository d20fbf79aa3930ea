import { sql } from 'kysely';
import type { AnyDb, EngineSettings } from '../engine.js';

/** What decides a MySQL or MariaDB result: InnoDB's page cache and its adaptive hash index (point reads by key). */
export const SETTINGS = ['innodb_buffer_pool_size', 'innodb_adaptive_hash_index'] as const;

const MIB = 1024 * 1024;

export async function settings(db: AnyDb): Promise<EngineSettings> {
  const { rows } = await sql<{ Variable_name: string; Value: string }>`
    show global variables where ${sql.id('Variable_name')} in (${sql.join(SETTINGS.map((n) => sql`${n}`))})`.execute(
    db,
  );
  const version = await sql<{ v: string }>`select version() as v`.execute(db);
  const text = String(version.rows[0]!.v);
  const value = (name: string, raw: string) => {
    if (name !== 'innodb_buffer_pool_size') return raw.toLowerCase();
    const bytes = Number(raw);
    return bytes % MIB === 0 ? `${bytes / MIB}MB` : raw;
  };
  // MariaDB says so in its version (10.11.6-MariaDB-0+deb12u1); MySQL does not
  const mariadb = /mariadb/i.test(text);
  return {
    version: mariadb ? `MariaDB ${text}` : `MySQL ${text}`,
    name: mariadb ? 'mariadb' : 'mysql',
    settings: Object.fromEntries(
      SETTINGS.flatMap((n) => rows.filter((r) => r.Variable_name === n).map((r) => [n, value(n, String(r.Value))])),
    ),
  };
}
