import { ToolError } from '@mcp-db-bench/contract';
import { type BulkLoader, type Connection, type Engine, engineForUrl } from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import { markedDataset } from './facts.js';
import { batches, Dataset } from './generate.js';
import { dropMarker, ForeignTablesError, mark, type Ownership, ownership, unmark } from './marker.js';
import { type DatasetTable, INDEX_SETS, type IndexSet, rowCounts, TABLES } from './schema.js';

export interface SeedOptions {
  url: string;
  /** 1 = 2.56 million rows */
  scale: number;
  seed: number;
  indexes: IndexSet;
  /** drop and reload the dataset tables that seed made before (the marker names them); never another table */
  force: boolean;
  /** rows generated and sent per batch */
  batchSize?: number;
  on?: SeedEvents;
}

/** Progress as it happens, for a progress bar or log lines; the report comes at the end. */
export interface SeedEvents {
  phase?(name: string): void;
  tableStart?(table: string, rows: number): void;
  progress?(table: string, rows: number): void;
  tableDone?(table: TableReport): void;
}

export interface TableReport {
  name: string;
  rows: number;
  seconds: number;
}

export interface SeedReport {
  engine: string;
  scale: number;
  seed: number;
  indexes: IndexSet;
  tables: TableReport[];
  /** seconds spent adding foreign keys, building indexes and refreshing statistics */
  finishSeconds: number;
  /** seconds spent counting rows and looking for orphaned foreign keys */
  verifySeconds: number;
  seconds: number;
  /** the loading process's peak resident memory, when it is known (set by seedInWorker) */
  peakRssMb?: number;
  checks: Checks;
}

export interface Checks {
  counts: { table: string; expected: number; actual: number }[];
  orphans: { table: string; column: string; references: string; rows: number }[];
  ok: boolean;
}

/**
 * Creates the dataset's tables (marking each as made by seed, see marker.ts), streams generated
 * rows in through the engine's bulk path, adds the foreign keys and the chosen indexes, refreshes
 * statistics and verifies counts and foreign keys. On failure the tables it created are dropped
 * again, and the error says so. A table of the same name that seed did not make stops it first.
 */
export async function seed(options: SeedOptions): Promise<SeedReport> {
  const counts = rowCounts(options.scale);
  const engine = engineForUrl(options.url);
  const loader = engine.bulk;
  const connection = await connectOrExplain(engine, options.url, true);
  const started = performance.now();
  const on = options.on ?? {};
  const created: string[] = [];
  let owned: Ownership | undefined;
  let markedBefore = true;
  try {
    owned = await ownership(connection, await engine.introspect(connection.db));
    markedBefore = owned.marked;
    await clearWay(connection, owned, options.force);
    on.phase?.('creating tables');
    for (const table of TABLES) {
      await createTable(connection, loader, table);
      created.push(table.name);
      await mark(connection, owned, [table.name], options);
    }
    const dataset = new Dataset({ seed: options.seed, counts });
    const tables: TableReport[] = [];
    for (const table of TABLES) {
      const rows = counts[table.name]!;
      on.tableStart?.(table.name, rows);
      const t0 = performance.now();
      await loader.load(connection, table, batches(table, dataset, options.batchSize ?? 10_000), (n) =>
        on.progress?.(table.name, n),
      );
      const report = { name: table.name, rows, seconds: (performance.now() - t0) / 1000 };
      tables.push(report);
      on.tableDone?.(report);
    }
    const t1 = performance.now();
    if (loader.foreignKeys === 'after') {
      on.phase?.('adding foreign keys');
      for (const table of TABLES) await addForeignKeys(connection, loader, table);
    }
    on.phase?.(`building ${options.indexes} indexes`);
    await applyIndexSet(options.url, options.indexes, { engine, connection });
    on.phase?.('refreshing statistics');
    for (const table of TABLES)
      for (const statement of loader.analyze(table.name)) await sql.raw(statement).execute(connection.db);
    const finishSeconds = (performance.now() - t1) / 1000;
    on.phase?.('verifying');
    const t2 = performance.now();
    const checks = await verify(connection, counts);
    const verifySeconds = (performance.now() - t2) / 1000;
    return {
      engine: engine.name,
      scale: options.scale,
      seed: options.seed,
      indexes: options.indexes,
      tables,
      finishSeconds,
      verifySeconds,
      seconds: (performance.now() - started) / 1000,
      checks,
    };
  } catch (error) {
    const dropped = await dropTables(connection, created.reverse()).catch(() => []);
    if (owned) await (markedBefore ? unmark(connection, owned, dropped) : dropMarker(connection)).catch(() => {});
    const cause = error instanceof ToolError ? error : (engine.mapError(error) ?? (error as Error));
    if (dropped.length === 0) throw cause;
    const note = ` (dropped the partly loaded tables: ${dropped.join(', ')})`;
    throw cause instanceof ToolError
      ? new ToolError(cause.code, `${cause.message}${note}`, { cause: error })
      : new Error(`${cause.message}${note}`, { cause: error });
  } finally {
    await connection.close();
  }
}

async function connectOrExplain(engine: Engine, url: string, create: boolean): Promise<Connection> {
  try {
    const connection = await engine.connect(url, { poolSize: 2, create, inProcess: true });
    await sql`select 1`.execute(connection.db).catch(async (error: unknown) => {
      await connection.close();
      throw error;
    });
    return connection;
  } catch (error) {
    throw engine.mapError(error) ?? error;
  }
}

/** The database already has dataset tables, and the seed was not told to replace them. */
export class DatasetExistsError extends ToolError {
  /** `dataset`: the scale and seed the marker names, where there is one */
  constructor(
    readonly tables: readonly string[],
    readonly dataset?: { scale: number | null; seed: number | null },
  ) {
    super(
      'invalid_argument',
      `the database already has dataset tables (${tables.join(', ')})` +
        `${dataset?.scale != null ? ` at scale ${dataset.scale}, seed ${dataset.seed}` : ''}; ` +
        'pass --force to drop and reload them',
    );
  }
}

/** Refuses tables of the dataset's names that seed did not make; refuses its own unless forced, and forced, drops them. */
async function clearWay(connection: Connection, owned: Ownership, force: boolean): Promise<void> {
  if (owned.foreign.length) throw new ForeignTablesError(owned.foreign);
  if (owned.ours.length === 0) return;
  if (!force) throw new DatasetExistsError(owned.ours, owned.marked ? await markedDataset(connection) : undefined);
  const dropped = await dropTables(
    connection,
    [...TABLES]
      .reverse()
      .map((t) => t.name)
      .filter((n) => owned.ours.includes(n)),
  );
  await unmark(connection, owned, dropped);
  owned.ours = [];
}

async function dropTables(connection: Connection, names: string[]): Promise<string[]> {
  for (const name of names) await sql`drop table if exists ${sql.id(name)}`.execute(connection.db);
  return names;
}

async function createTable(connection: Connection, loader: BulkLoader, table: DatasetTable): Promise<void> {
  const columns = table.columns.map(
    (c) => sql`${sql.id(c.name)} ${sql.raw(loader.columnType(c))} ${sql.raw(c.nullable ? 'null' : 'not null')}`,
  );
  const keys = [sql`primary key (${sql.id('id')})`];
  if (loader.foreignKeys === 'inline') keys.push(...foreignKeys(table));
  await sql`create table ${sql.id(table.name)} (${sql.join([...columns, ...keys])})`.execute(connection.db);
}

function foreignKeys(table: DatasetTable) {
  return table.columns
    .filter((c) => c.references)
    .map(
      (c) =>
        sql`constraint ${sql.id(`fk_${table.name}_${c.name}`)} foreign key (${sql.id(c.name)}) references ${sql.id(c.references!)} (${sql.id('id')})`,
    );
}

async function addForeignKeys(connection: Connection, loader: BulkLoader, table: DatasetTable): Promise<void> {
  const constraints = foreignKeys(table);
  if (loader.addForeignKeys) return loader.addForeignKeys(connection, table, constraints);
  for (const fk of constraints) await sql`alter table ${sql.id(table.name)} add ${fk}`.execute(connection.db);
}

/**
 * Switches the secondary indexes to a profile on a loaded database, without reloading: drops
 * the other profile's indexes and creates the missing ones. Returns what it did.
 */
export async function applyIndexSet(
  url: string,
  profile: IndexSet,
  open?: { engine: Engine; connection: Connection },
): Promise<{ created: string[]; dropped: string[] }> {
  const engine = open?.engine ?? engineForUrl(url);
  const connection = open?.connection ?? (await connectOrExplain(engine, url, false));
  try {
    const catalog = await engine.introspect(connection.db);
    const { foreign } = await ownership(connection, catalog);
    if (foreign.length) throw new ForeignTablesError(foreign);
    const missing = TABLES.filter((t) => !catalog.tables.some((x) => x.name === t.name)).map((t) => t.name);
    if (missing.length) {
      throw new ToolError(
        'invalid_argument',
        `not a seeded database: tables ${missing.join(', ')} are missing; run mcp-db-bench seed first`,
      );
    }
    const existing = new Set(catalog.indexes.map((i) => i.name));
    const wanted = new Set(INDEX_SETS[profile].map((i) => i.name));
    const dropped: string[] = [];
    for (const spec of INDEX_SETS.optimized) {
      if (!wanted.has(spec.name) && existing.has(spec.name)) {
        await sql.raw(engine.bulk.dropIndex(spec.name, spec.table)).execute(connection.db);
        dropped.push(spec.name);
      }
    }
    const created: string[] = [];
    for (const spec of INDEX_SETS[profile]) {
      if (existing.has(spec.name)) continue;
      await connection.db.schema.createIndex(spec.name).on(spec.table).columns(spec.columns).execute();
      created.push(spec.name);
    }
    return { created, dropped };
  } finally {
    if (!open) await connection.close();
  }
}

/** Row counts against the generator's, and orphaned foreign keys (there must be none). */
export async function verify(connection: Connection, expected: Record<string, number>): Promise<Checks> {
  const counts: Checks['counts'] = [];
  const orphans: Checks['orphans'] = [];
  for (const table of TABLES) {
    const r = await sql<{ n: unknown }>`select count(*) as n from ${sql.id(table.name)}`.execute(connection.db);
    counts.push({ table: table.name, expected: expected[table.name]!, actual: Number(r.rows[0]?.n) });
    for (const c of table.columns.filter((x) => x.references)) {
      const o = await sql<{ n: unknown }>`select count(*) as n from ${sql.id(table.name)} c
        where c.${sql.id(c.name)} is not null
        and not exists (select 1 from ${sql.id(c.references!)} p where p.${sql.id('id')} = c.${sql.id(c.name)})`.execute(
        connection.db,
      );
      orphans.push({ table: table.name, column: c.name, references: c.references!, rows: Number(o.rows[0]?.n) });
    }
  }
  const ok = counts.every((c) => c.expected === c.actual) && orphans.every((o) => o.rows === 0);
  return { counts, orphans, ok };
}
