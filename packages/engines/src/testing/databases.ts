import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RawBuilder, sql } from 'kysely';
import type { AnyDb, Connection, ConnectOptions } from '../engine.js';

type Connect = (url: string, options: ConnectOptions) => Promise<Connection>;

/**
 * An empty database on a server, for tests: runs the engine's drop-and-create statements on
 * the maintenance database at `baseUrl`, then returns that URL with `name` as its path.
 */
export async function recreateOnServer(
  connect: Connect,
  baseUrl: string,
  name: string,
  statements: (id: RawBuilder<unknown>, name: string) => RawBuilder<unknown>[],
): Promise<string> {
  const { db, close } = await connect(baseUrl, { poolSize: 1, serverLevel: true });
  try {
    for (const statement of statements(sql.id(name), name)) await statement.execute(db as AnyDb);
  } finally {
    await close();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A path for an embedded engine's new database file (or folder), in a new temporary directory. */
export function temporaryPath(name: string): string {
  return join(mkdtempSync(join(tmpdir(), 'mcp-db-')), name);
}
