import { engineForUrl } from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import { DEFAULT_MAX_BOUND_VALUES } from './bound-values.js';
import { SchemaCache } from './catalog/cache.js';
import type { Telemetry } from './telemetry/index.js';
import type { Limits, ToolContext } from './tools/tool.js';

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
  const { db, shortReads, close } = await engine.connect(options.url, {
    poolSize: options.poolSize ?? 10,
    readOnly: !options.allowWrites,
    statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    observer: options.telemetry?.observer(engine),
    // the engine stops an answer that could not make a result within the limit while it reads it
    maxResponseBytes: limits.maxResponseBytes,
  });
  const schema = new SchemaCache(engine, db, (options.schemaTtl ?? 60) * 1000);
  try {
    await schema.get();
  } catch (error) {
    await close().catch(() => {});
    throw engine.mapError(error) ?? error;
  }
  const ping = async () => {
    await sql`select 1`.execute(db);
  };
  return { engine, db, shortReads, schema, limits, ping, close, telemetry: options.telemetry };
}
