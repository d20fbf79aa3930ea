import { type AnyDb, type Engine, outsideCalls } from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import { buildCatalog, tablesToCount } from './build.js';
import type { Catalog } from './types.js';

/** Below this estimate a table is counted exactly, so small tables report exact sizes. */
const EXACT_COUNT_BELOW = 100_000;

/**
 * The introspected schema, loaded once and shared by every call. It is reloaded when it
 * is older than the TTL (in the background: callers keep the previous one meanwhile) and
 * at once when a statement fails in a way that suggests the schema changed.
 */
export class SchemaCache {
  #current?: Catalog;
  #loading?: Promise<Catalog>;

  constructor(
    private readonly engine: Engine,
    private readonly db: AnyDb,
    private readonly ttlMs: number,
  ) {}

  async get(): Promise<Catalog> {
    const current = this.#current;
    if (!current) return this.#load();
    if (this.ttlMs > 0 && Date.now() - current.loadedAt > this.ttlMs) this.#load().catch(() => {});
    return current;
  }

  /** Forgets the cached schema and loads it again. */
  refresh(): Promise<Catalog> {
    return this.#load();
  }

  #load(): Promise<Catalog> {
    // Shared by every call waiting for it: the call that happened to start it may not stop it.
    this.#loading ??= outsideCalls(() => this.#introspect()).finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #introspect(): Promise<Catalog> {
    const raw = await this.engine.introspect(this.db);
    const counts = new Map<string, number>();
    await Promise.all(
      tablesToCount(raw, EXACT_COUNT_BELOW).map(async (name) => {
        const r = await sql<{ n: unknown }>`select count(*) as n from ${sql.id(name)}`.execute(this.db);
        counts.set(name, Number(r.rows[0]?.n ?? 0));
      }),
    );
    this.#current = buildCatalog(raw, counts);
    return this.#current;
  }
}
