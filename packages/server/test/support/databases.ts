import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { engineForUrl } from '../../src/databases/index.js';

/**
 * The live databases the integration tests run against: SQLite always, and every server
 * whose URL is set. Under CI (CI=true) PostgreSQL and MariaDB are required, so a missing
 * server fails the run instead of silently skipping its tests.
 */
export interface LiveTarget {
  engine: string;
  /** URL of a server's maintenance database, or of nothing for SQLite */
  baseUrl: string;
}

export function liveTargets(): LiveTarget[] {
  const targets: LiveTarget[] = [{ engine: 'sqlite', baseUrl: 'sqlite:' }];
  const fromEnv: [string, string | undefined, boolean][] = [
    ['postgres', process.env.PG_URL, true],
    ['mariadb', process.env.MYSQL_URL, true],
    ['mssql', process.env.MSSQL_URL, false],
  ];
  for (const [engine, url, requiredInCi] of fromEnv) {
    if (url) targets.push({ engine, baseUrl: url });
    else if (requiredInCi && process.env.CI) throw new Error(`CI needs ${engine}: set its URL (see .ci/run)`);
  }
  return targets;
}

/** Creates (or re-creates) an empty database named `name` and returns its URL. */
export async function freshDatabase(target: LiveTarget, name: string): Promise<string> {
  if (target.baseUrl === 'sqlite:') return `sqlite:${join(mkdtempSync(join(tmpdir(), 'mcp-db-')), `${name}.db`)}`;
  const engine = engineForUrl(target.baseUrl);
  const { db, close } = await engine.connect(target.baseUrl, { poolSize: 1 });
  try {
    const id = sql.id(name);
    if (engine.family === 'postgres') {
      await sql`drop database if exists ${id} with (force)`.execute(db);
      await sql`create database ${id}`.execute(db);
    } else if (engine.family === 'mysql') {
      await sql`drop database if exists ${id}`.execute(db);
      await sql`create database ${id} character set utf8mb4 collate utf8mb4_bin`.execute(db);
    } else {
      await sql`if db_id(${name}) is not null begin alter database ${id} set single_user with rollback immediate; drop database ${id}; end`.execute(db);
      await sql`create database ${id}`.execute(db);
    }
  } finally {
    await close();
  }
  const url = new URL(target.baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
