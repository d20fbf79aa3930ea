import type { PlanTarget, RawDriver } from '@mcp-db-bench/agent';
import { applyIndexProfile, type IndexProfile } from '@mcp-db-bench/dataset';
import { engineForUrl } from '@mcp-db-bench/server';
import { sql } from 'kysely';

/**
 * What the runner cannot do itself for a database we seeded: set its index profile, and run a
 * tool's statement through the driver alone. Every target on the database shares these.
 */
export function ownedDatabase(url: string): Required<Pick<PlanTarget, 'reindex' | 'driver'>> {
  return {
    reindex: async (profile) => {
      const changed = await applyIndexProfile(url, profile as IndexProfile);
      return { created: changed.created.length, dropped: changed.dropped.length };
    },
    driver: () => rawDriver(url),
  };
}

async function rawDriver(url: string): Promise<RawDriver> {
  const engine = engineForUrl(url);
  const { db, close } = await engine.connect(url, { poolSize: 1, inProcess: true });
  return {
    count: async (table) => Number((await sql<{ n: unknown }>`select count(*) as n from ${sql.id(table)}`.execute(db)).rows[0]?.n ?? 1),
    select: async (table, column, value, limit) => {
      if (limit === undefined) await sql`select * from ${sql.id(table)} where ${sql.id(column)} = ${value}`.execute(db);
      else await engine.limit(db.selectFrom(table).selectAll().where(sql<boolean>`${sql.id(column)} = ${value}`).orderBy(sql.id('id')), limit).execute();
    },
    close,
  };
}
