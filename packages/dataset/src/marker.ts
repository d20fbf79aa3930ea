import { BENCH_TABLE_PREFIX, ToolError } from '@mcp-db-bench/contract';
import type { Connection } from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import { TABLES } from './schema.js';

/**
 * The dataset's mark: a table naming every table `seed` made, with the scale and seed it made
 * them with. Whatever it does not name belongs to someone else, and no command writes into,
 * alters or drops it, however alike its name.
 */
export const MARKER_TABLE = `${BENCH_TABLE_PREFIX}dataset`;

/** What the database holds of the dataset's table names: the ones seed made, and the ones it did not. */
export interface Ownership {
  ours: string[];
  foreign: string[];
  /** the marker table exists */
  marked: boolean;
}

/** A catalog's view of the database, as much as ownership needs. */
interface Seen {
  tables: readonly { name: string }[];
  columns: readonly { table: string; name: string }[];
}

/**
 * Which of the dataset's table names in `seen` are ours. A database seeded before the mark
 * existed holds every dataset table with exactly the dataset's columns and no marker: that is
 * taken as ours (and marked by the next seed); anything short of it is not.
 */
export async function ownership(connection: Connection, seen: Seen): Promise<Ownership> {
  const present = TABLES.filter((t) => seen.tables.some((x) => x.name.toLowerCase() === t.name)).map((t) => t.name);
  const marked = seen.tables.some((t) => t.name.toLowerCase() === MARKER_TABLE);
  if (!marked) {
    const unmarkedSeed =
      present.length === TABLES.length &&
      TABLES.every((t) =>
        sameColumns(
          t.name,
          t.columns.map((c) => c.name),
          seen,
        ),
      );
    return unmarkedSeed ? { ours: present, foreign: [], marked } : { ours: [], foreign: present, marked };
  }
  const { rows } = await sql<{
    table_name: string;
  }>`select ${sql.id('table_name')} from ${sql.id(MARKER_TABLE)}`.execute(connection.db);
  const named = new Set(rows.map((r) => r.table_name));
  return { ours: present.filter((n) => named.has(n)), foreign: present.filter((n) => !named.has(n)), marked };
}

function sameColumns(table: string, columns: readonly string[], seen: Seen): boolean {
  const found = seen.columns.filter((c) => c.table.toLowerCase() === table).map((c) => c.name.toLowerCase());
  return found.length === columns.length && columns.every((c) => found.includes(c));
}

/** Names `tables` as made by seed (creating the marker table first if need be). */
export async function mark(
  connection: Connection,
  ownership: Ownership,
  tables: readonly string[],
  made: { scale: number; seed: number },
): Promise<void> {
  if (!ownership.marked) {
    await connection.db.schema
      .createTable(MARKER_TABLE)
      .addColumn('table_name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('scale', 'varchar(32)', (c) => c.notNull())
      .addColumn('seed', 'integer', (c) => c.notNull())
      .execute();
    ownership.marked = true;
  }
  for (const name of tables) {
    await sql`insert into ${sql.id(MARKER_TABLE)} (${sql.id('table_name')}, ${sql.id('scale')}, ${sql.id('seed')}) values (${name}, ${String(made.scale)}, ${made.seed})`.execute(
      connection.db,
    );
  }
}

/** Forgets `tables` (dropped by seed, or never finished). */
export async function unmark(connection: Connection, ownership: Ownership, tables: readonly string[]): Promise<void> {
  if (!ownership.marked || tables.length === 0) return;
  await sql`delete from ${sql.id(MARKER_TABLE)} where ${sql.id('table_name')} in (${sql.join(tables.map((t) => sql`${t}`))})`.execute(
    connection.db,
  );
}

/** Drops the marker table: a failed first seed leaves nothing behind. */
export async function dropMarker(connection: Connection): Promise<void> {
  await sql`drop table if exists ${sql.id(MARKER_TABLE)}`.execute(connection.db);
}

/** The database holds tables with the dataset's names that seed did not make: nothing may touch them. */
export class ForeignTablesError extends ToolError {
  constructor(readonly tables: readonly string[]) {
    super(
      'invalid_argument',
      `the database already has tables named ${tables.join(', ')} that mcp-db-bench seed did not make, and no command writes into, alters or drops them: ` +
        `give a database of its own (a new SQLite file, or CREATE DATABASE mcp_db_bench on a server)`,
    );
  }
}
