import { sql } from 'kysely';
import type { AnyDb, EngineSettings } from '../engine.js';

/** What decides a PostgreSQL result: the shared cache, each sort's and hash's memory, and whether JIT compiles plans. */
export const SETTINGS = ['shared_buffers', 'work_mem', 'effective_cache_size', 'jit'] as const;

export async function settings(db: AnyDb): Promise<EngineSettings> {
  const { rows } = await sql<{ name: string; value: string }>`
    select name, current_setting(name) as value from pg_settings
    where name in (${sql.join(SETTINGS.map((n) => sql`${n}`))}) order by name`.execute(db);
  const version = await sql<{ v: string }>`select current_setting('server_version') as v`.execute(db);
  return {
    version: `PostgreSQL ${version.rows[0]!.v}`,
    settings: Object.fromEntries(SETTINGS.flatMap((n) => rows.filter((r) => r.name === n).map((r) => [n, r.value]))),
  };
}
