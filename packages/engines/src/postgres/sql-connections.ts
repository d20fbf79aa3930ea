import { ToolError } from '@mcp-db-bench/contract';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { answerBudget } from '../answer-bytes.js';
import { Statements } from '../calls.js';
import type { Connection, SqlConnectOptions } from '../engine.js';
import { loadDriver } from '../load-driver.js';
import { meteredClient } from './answer-meter.js';
import { watchStatements } from './cancel.js';
import { type Pg, textTypes } from './connect.js';
import { checkSession, sessionSettings, startupOptions } from './session.js';

/** How the sql tool's sessions show in pg_stat_activity: apart from the other tools' (`mcp-db-server`). */
export const SQL_APPLICATION_NAME = 'mcp-db-server sql';

/**
 * What a caller's statement can leave on a session that a rollback keeps: prepared statements,
 * session advisory locks, cursors, LISTEN, temporary tables, cached plans, sequence state; and
 * settings, which DISCARD ALL resets to the session's start (the startup options, the role among
 * them: see sqlSessions). It cannot run inside a transaction, so it runs alone, after the rollback.
 */
const RESET = 'discard all';

/** A role name as the startup options carry it: no quoting there, so nothing that would need it. */
const ROLE_NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

/**
 * The sql tool's own connections to PostgreSQL: a pool apart from the other tools' (no statement
 * of theirs runs here, none of their named statements exists here), read-only, with the server's
 * statement timeout and cancellation, each session reset (DISCARD ALL) before another call gets
 * it. With a role, every session takes it at login (`-c role=NAME`, which DISCARD ALL keeps): the
 * caller's statements then have the role's rights, not the login's, and cannot signal the login's
 * backends (pg_terminate_backend needs the rights of the backend's role). One connection is opened
 * now, so a role or setting that cannot apply fails at start.
 */
export async function connectSql(url: string, options: SqlConnectOptions): Promise<Connection> {
  const { role } = options;
  if (role !== undefined && !ROLE_NAME.test(role))
    throw new ToolError(
      'invalid_argument',
      `role ${JSON.stringify(role)}: a role for the sql tool's sessions is a plain name (letters, digits, _ and $; at most 63)`,
    );
  const settings = sessionSettings(true, options.statementTimeoutMs);
  const pg = await loadDriver<Pg>('postgres', 'pg');
  const pool = new pg.Pool({
    connectionString: url,
    // the wait limit of the sql tool's calls (and of opening a connection)
    connectionTimeoutMillis: options.poolWaitMs,
    application_name: SQL_APPLICATION_NAME,
    options: startupOptions(role === undefined ? settings : { ...settings, role }),
    types: textTypes(pg),
    Client: meteredClient(pg.Client, answerBudget(options.maxResponseBytes)),
    max: options.poolSize,
    verify: (client: pg.PoolClient, done: (error?: Error) => void) =>
      checkSqlSession(client, settings, role).then(() => done(), done),
  } as pg.PoolConfig);
  pool.on('error', () => {});
  // Before watchStatements wraps each client's query: the reset runs on the driver's own.
  resetOnRelease(pool);
  const statements = new Statements(options.observer);
  watchStatements(pool, statements);
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  const close = statements.closing(db);
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
  return { db, driver: pool, close };
}

/** The server's settings (checkSession), and the role when one is asked for. */
async function checkSqlSession(client: pg.ClientBase, settings: Record<string, string>, role?: string): Promise<void> {
  await checkSession(client, settings);
  if (role === undefined) return;
  const { rows } = await client.query<{ role: string }>('select current_user as role');
  if (rows[0]?.role !== role)
    throw new Error(
      `PostgreSQL did not apply the sql tool's role ${role} (the session runs as ${rows[0]?.role}): a connection pooler may be dropping the "options" startup parameter`,
    );
}

/**
 * Each client, when its caller lets it go, is reset before the pool may hand it out again; one
 * whose reset fails (its backend gone, or whatever state it is in) is closed instead. Wraps
 * `pool.connect` as kysely calls it (no callback): call before watchStatements wraps it again.
 */
function resetOnRelease(pool: pg.Pool): void {
  const raw = new WeakMap<pg.PoolClient, (text: string) => Promise<unknown>>();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    raw.set(client as pg.PoolClient, client.query.bind(client) as (text: string) => Promise<unknown>);
  });
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  pool.connect = ((callback?: unknown) => {
    if (callback !== undefined) return connect(callback);
    return connect()!.then((client) => {
      // pg makes a new release function for each checkout: this one resets, once, for this checkout.
      const release = client.release;
      client.release = ((error?: Error | boolean) => {
        if (error) return release.call(client, error);
        raw.get(client)!(RESET).then(
          () => release.call(client),
          (failed: Error) => release.call(client, failed),
        );
      }) as typeof client.release;
      return client;
    });
  }) as typeof pool.connect;
}
