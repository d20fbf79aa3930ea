import { applyIndexSet, type IndexSet } from '@mcp-db-bench/dataset';
import type { Engine } from '@mcp-db-bench/engines';
import type { PlanTarget, RawDriver } from '@mcp-db-bench/loadgen';
import { sql } from 'kysely';

/** A database of the plan: its URL and its engine, resolved once (serving/lifecycle.ts). */
export interface Database {
  url: string;
  engine: Engine;
}

/**
 * What the runner cannot do itself for a database we seeded: set its index set, and run a
 * tool's statement through the driver alone. Every target on the database shares these. Call
 * it before the server starts: on an engine that can be open in one process at a time
 * (PGlite), neither can run beside the server, so the database gets `first` now and keeps it.
 */
export async function ownedDatabase(
  db: Database,
  first: IndexSet,
  log: (line: string) => void,
): Promise<Pick<PlanTarget, 'reindex' | 'driver'>> {
  const { url, engine } = db;
  if (engine.oneProcess) {
    await applyIndexSet(url, first);
    log(
      `${engine.name}: ${engine.title} can be open in one process at a time: measured with ${first} indexes only, and without the driver-only decomposition`,
    );
    return {};
  }
  return {
    reindex: async (set) => {
      const changed = await applyIndexSet(url, set as IndexSet);
      return { created: changed.created.length, dropped: changed.dropped.length };
    },
    driver: () => rawDriver(db),
  };
}

/** Server worker processes for a database: one where the engine can be open in one process at a time. */
export function workersFor({ engine }: Database, wanted: number, log: (line: string) => void): number {
  if (!engine.oneProcess || wanted === 1) return wanted;
  log(`${engine.name}: one server process instead of ${wanted} (${engine.title} can be open in one process at a time)`);
  return 1;
}

/** A tool's statement through the driver alone, on one connection of its own. */
export async function rawDriver({ url, engine }: Database): Promise<RawDriver> {
  const { db, close } = await engine.connect(url, { poolSize: 1, inProcess: true });
  return {
    count: async (table) =>
      Number((await sql<{ n: unknown }>`select count(*) as n from ${sql.id(table)}`.execute(db)).rows[0]?.n ?? 1),
    select: async (table, column, value, limit) => {
      if (limit === undefined) await sql`select * from ${sql.id(table)} where ${sql.id(column)} = ${value}`.execute(db);
      else
        await engine
          .limit(
            db
              .selectFrom(table)
              .selectAll()
              .where(sql<boolean>`${sql.id(column)} = ${value}`)
              .orderBy(sql.id('id')),
            limit,
          )
          .execute();
    },
    close,
  };
}
