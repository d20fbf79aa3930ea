import { sql } from 'kysely';
import type { AnyDb, EngineSettings } from '../engine.js';

/**
 * What decides a SQLite result: each connection's page cache (negative: KiB), memory-mapped I/O
 * and the journal. Our connections set none of them (pragmas.ts), so a new one shows the server's.
 */
export const SETTINGS = ['cache_size', 'mmap_size', 'journal_mode'] as const;

export async function settings(db: AnyDb): Promise<EngineSettings> {
  const version = await sql<{ v: string }>`select sqlite_version() as v`.execute(db);
  const values: Record<string, string> = {};
  for (const name of SETTINGS) {
    const { rows } = await sql<Record<string, unknown>>`${sql.raw(`pragma ${name}`)}`.execute(db);
    const value = rows[0] && Object.values(rows[0])[0];
    if (value !== undefined) values[name] = String(value);
  }
  return { version: `SQLite ${version.rows[0]!.v}`, settings: values };
}
