import {
  type Connection,
  type Engine,
  engineForUrl,
  type SqlConnectOptions,
  type SqlPolicy,
} from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import { DEFAULT_MAX_BOUND_VALUES } from './bound-values.js';
import { SchemaCache } from './catalog/cache.js';
import type { Telemetry } from './telemetry/index.js';
import type { Limits, SqlConnections, ToolContext } from './tools/tool.js';

/** The sql tool's own connections (Engine.connectSql), opened only when it is served. */
export interface SqlOptions {
  /** most connections of its own */
  poolSize: number;
  /** longest a sql call waits for one of them */
  waitMs: number;
  /** a role its sessions take, narrower than the login (PostgreSQL) */
  role?: string;
}

/** --sql-pool-size: a few, so that slow statements wait for each other and never for the other tools. */
export const DEFAULT_SQL_POOL_SIZE = 3;
/** --sql-wait-timeout: a sql call that finds every one of its connections busy this long is told so. */
export const DEFAULT_SQL_WAIT_MS = 5_000;

export interface DatabaseOptions {
  url: string;
  poolSize?: number;
  /** seconds before the cached schema is reloaded in the background; 0 = only on demand */
  schemaTtl?: number;
  limits?: Partial<Limits>;
  /** open read-write sessions (the write tools need them); read-only by default */
  allowWrites?: boolean;
  /** the database cancels any statement running longer than this; 0 = no limit */
  statementTimeoutMs?: number;
  /** where tool calls and statements are reported; absent: nowhere */
  telemetry?: Telemetry;
  /** open the sql tool's own connections (with --sql); absent: none */
  sql?: SqlOptions;
  /** what the sql tool allows beyond its guard's judgement (--sql-allow-function); absent: nothing */
  sqlPolicy?: SqlPolicy;
}

export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

export const DEFAULT_LIMITS: Limits = {
  defaultRows: 100,
  maxRows: 1000,
  maxResponseBytes: 1024 * 1024,
  maxBoundValues: DEFAULT_MAX_BOUND_VALUES,
};

/** A connected database with its cached schema: what every tool call shares. */
export interface DatabaseContext extends ToolContext {
  /** One trivial statement through the pool: rejects when the database cannot answer (the HTTP /healthz check). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Connects (loading only this engine's driver) and reads the schema once, so errors show at start. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseContext> {
  const engine = engineForUrl(options.url);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  limits.defaultRows = Math.min(limits.defaultRows, limits.maxRows);
  const statementTimeoutMs = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const observer = options.telemetry?.observer(engine);
  const main = await engine.connect(options.url, {
    poolSize: options.poolSize ?? 10,
    readOnly: !options.allowWrites,
    statementTimeoutMs,
    observer,
    // the engine stops an answer that could not make a result within the limit while it reads it
    maxResponseBytes: limits.maxResponseBytes,
  });
  const { db, shortReads } = main;
  const schema = new SchemaCache(engine, db, (options.schemaTtl ?? 60) * 1000);
  let sqlConnections: SqlConnections | undefined;
  try {
    await schema.get();
    sqlConnections = await openSql(engine, options, main, {
      statementTimeoutMs,
      observer,
      maxResponseBytes: limits.maxResponseBytes,
    });
  } catch (error) {
    await main.close().catch(() => {});
    throw engine.mapError(error) ?? error;
  }
  const ping = async () => {
    await sql`select 1`.execute(db);
  };
  const close = async () => {
    await Promise.allSettled([sqlConnections?.close(), main.close()]);
  };
  return {
    engine,
    db,
    shortReads,
    sql: sqlConnections,
    schema,
    limits,
    ping,
    close,
    telemetry: options.telemetry,
    sqlPolicy: options.sqlPolicy,
  };
}

/** The sql tool's own connections, when it is served on an engine that has it. */
async function openSql(
  engine: Engine,
  options: DatabaseOptions,
  main: Connection,
  shared: Omit<SqlConnectOptions, 'poolSize' | 'poolWaitMs' | 'role'>,
): Promise<SqlConnections | undefined> {
  if (!options.sql || !engine.connectSql) return undefined;
  const { poolSize, waitMs, role } = options.sql;
  const { db, close } = await engine
    .connectSql(options.url, { ...shared, poolSize, poolWaitMs: waitMs, role }, main)
    .catch((error: unknown) => {
      // A role the login may not take, or an engine that has none, fails here: say which option asked for it.
      if (role === undefined) throw error;
      const message = (engine.mapError(error) ?? (error as Error))?.message ?? String(error);
      throw new Error(`--sql-role ${role}: ${message}`, { cause: error });
    });
  return { db, poolSize, waitMs, close };
}
