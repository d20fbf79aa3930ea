/**
 * A database as the run finds it, for the result file: its version and the settings that decide
 * the result (each engine says which, in its own folder), and the dataset it holds: the scale
 * and seed its marker table names, and the secondary indexes its catalog shows under each
 * index profile the run applied. Read from the database, never taken from the flags.
 */
import type { DatabaseFacts } from '@mcp-db-bench/contract';
import { datasetFacts } from '@mcp-db-bench/dataset';
import type { Connection } from '@mcp-db-bench/engines';
import { onDatabase } from '../errors.js';
import type { Database } from './database.js';
import { indexProfileOf } from './shard.js';

async function withConnection<T>({ url, engine }: Database, read: (c: Connection) => Promise<T>): Promise<T> {
  return onDatabase(url, async () => {
    const connection = await engine.connect(url, { poolSize: 1, inProcess: true });
    try {
      return await read(connection);
    } finally {
      await connection.close();
    }
  });
}

/**
 * Reads `db` now. Its indexes are filed under the profile they make (`baseline`, `optimized`,
 * `partial (...)`), unless `reindexed`: then `indexesAfter` files them as each profile is applied.
 */
export async function readFacts(db: Database, reindexed: boolean): Promise<DatabaseFacts> {
  return withConnection(db, async (connection) => {
    const found = await datasetFacts(connection, db.engine);
    // a user who may not read them still gets the run, with the settings unknown
    const unknown = { version: db.engine.title, settings: {} };
    const engine = (await db.engine.settings?.(connection.db).catch(() => unknown)) ?? unknown;
    const names = found.indexes.map((i) => i.slice(i.indexOf('.') + 1));
    return {
      ...engine,
      scale: found.scale,
      seed: found.seed,
      indexes: reindexed ? {} : { [indexProfileOf(names)]: found.indexes },
    };
  });
}

/** Files the indexes `db` has now under `profile`, the first time that profile is applied. */
export async function indexesAfter(db: Database, facts: DatabaseFacts, profile: string): Promise<void> {
  if (facts.indexes[profile]) return;
  facts.indexes[profile] = await withConnection(db, async (c) => (await datasetFacts(c, db.engine)).indexes);
}

/** The dataset scale every database agrees on; null when they differ or none says. */
export function recordedScale(facts: readonly (DatabaseFacts | undefined)[]): number | null {
  const scales = new Set(facts.map((f) => f?.scale ?? null));
  const [only] = scales;
  return scales.size === 1 && only !== undefined ? only : null;
}
