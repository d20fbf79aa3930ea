import type { Connection, Engine } from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import { MARKER_TABLE } from './marker.js';
import { TABLES } from './schema.js';

/** The dataset as the database holds it, whatever a command's flags said. */
export interface DatasetFacts {
  /** from the marker table: the scale and seed seed made it with (null: unmarked, or tables of several seeds) */
  scale: number | null;
  seed: number | null;
  /** the secondary indexes on the dataset's tables as the catalog shows them, `table.name`, sorted */
  indexes: string[];
}

export async function datasetFacts(connection: Connection, engine: Engine): Promise<DatasetFacts> {
  const catalog = await engine.introspect(connection.db);
  const ours = new Set(TABLES.map((t) => t.name));
  const indexes = catalog.indexes
    .filter((i) => ours.has(i.table.toLowerCase()))
    .map((i) => `${i.table.toLowerCase()}.${i.name}`)
    .sort();
  const marked = catalog.tables.some((t) => t.name.toLowerCase() === MARKER_TABLE);
  if (!marked) return { scale: null, seed: null, indexes };
  return { ...(await markedDataset(connection)), indexes };
}

/** The scale and seed the marker table names (null: tables of several seeds or scales). */
export async function markedDataset(connection: Connection): Promise<Pick<DatasetFacts, 'scale' | 'seed'>> {
  const { rows } = await sql<{
    scale: string;
    seed: unknown;
  }>`select distinct ${sql.id('scale')}, ${sql.id('seed')} from ${sql.id(MARKER_TABLE)}`.execute(connection.db);
  const only = rows.length === 1 ? rows[0]! : undefined;
  return { scale: only ? Number(only.scale) : null, seed: only ? Number(only.seed) : null };
}
