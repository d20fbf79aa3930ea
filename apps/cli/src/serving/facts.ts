/**
 * A database as the run finds it, for the result file: its version and the settings that decide
 * the result (each engine says which, in its own folder), and the dataset it holds: the scale
 * and seed its marker table names, and the secondary indexes its catalog shows under each
 * index set the run applied. Read from the database, never taken from the flags.
 */
import type { DatabaseFacts } from '@mcp-db-bench/contract';
import { datasetFacts } from '@mcp-db-bench/dataset';
import type { Connection } from '@mcp-db-bench/engines';
import { onDatabase } from '../errors.js';
import type { Database } from './database.js';
import { indexSetOf } from './shard.js';

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
 * Reads `db` now, and the engine's name as its users know it (`mariadb` for a MariaDB server
 * behind `mysql://`): the name reports label its rows with. Its indexes are filed under the index
 * set they make (`baseline`, `optimized`, `partial (...)`), unless `reindexed`: then
 * `indexesAfter` files them as each set is applied.
 */
export async function readFacts(db: Database, reindexed: boolean): Promise<{ facts: DatabaseFacts; name: string }> {
  return withConnection(db, async (connection) => {
    const found = await datasetFacts(connection, db.engine);
    // a user who may not read them still gets the run, with the settings unknown
    const unknown: { version: string; settings: Record<string, string>; name?: string } = {
      version: db.engine.title,
      settings: {},
    };
    const { version, settings, name } = (await db.engine.settings?.(connection.db).catch(() => unknown)) ?? unknown;
    const names = found.indexes.map((i) => i.slice(i.indexOf('.') + 1));
    return {
      facts: {
        version,
        settings,
        scale: found.scale,
        seed: found.seed,
        indexes: reindexed ? {} : { [indexSetOf(names)]: found.indexes },
      },
      name: name ?? db.engine.name,
    };
  });
}

/**
 * The engine as its users name it, from the server itself (`mariadb` for a MariaDB server behind
 * `mysql://`), for labels; the URL's engine where the engine reads no settings. Call it before
 * our server opens an engine that can be open in one process at a time.
 */
export async function engineName(db: Database): Promise<string> {
  const settings = db.engine.settings;
  if (!settings) return db.engine.name;
  const read = await withConnection(db, (c) => settings(c.db)).catch(() => undefined);
  return read?.name ?? db.engine.name;
}

/** Files the indexes `db` has now under `set`, the first time that index set is applied. */
export async function indexesAfter(db: Database, facts: DatabaseFacts, set: string): Promise<void> {
  if (facts.indexes[set]) return;
  facts.indexes[set] = await withConnection(db, async (c) => (await datasetFacts(c, db.engine)).indexes);
}

/** The dataset scale every database agrees on; null when they differ or none says. */
export function recordedScale(facts: readonly (DatabaseFacts | undefined)[]): number | null {
  const scales = new Set(facts.map((f) => f?.scale ?? null));
  const [only] = scales;
  return scales.size === 1 && only !== undefined ? only : null;
}
