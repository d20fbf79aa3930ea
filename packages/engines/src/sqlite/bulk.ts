import type BetterSqlite3 from 'better-sqlite3';
import type { BulkLoader, BulkRow } from '../engine.js';

const ROWS_PER_INSERT = 64;

/** One prepared INSERT, one transaction per batch, journaling relaxed for the load. */
export const bulk: BulkLoader = {
  foreignKeys: 'inline',
  columnType(c) {
    // INTEGER as the primary key is the rowid: SQLite generates it when an insert leaves it out.
    if (c.type === 'integer') return 'INTEGER';
    if (c.type === 'decimal') return `DECIMAL(${c.size},${c.scale})`;
    if (c.type === 'text') return `VARCHAR(${c.size})`;
    if (c.type === 'boolean') return 'BOOLEAN';
    if (c.type === 'timestamp') return 'TIMESTAMP';
    throw new Error(`no SQLite type for ${c.type}`);
  },
  async load(connection, table, rows, progress) {
    const db = connection.driver as BetterSqlite3.Database;
    // A seed can always be re-run, so durability during the load buys nothing.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    // Checked once after the load instead of once per row (seed's verify step counts orphans).
    db.pragma('foreign_keys = OFF');
    // Many rows per statement: binding is cheap, stepping a statement is not.
    const group = `(${table.columns.map(() => '?').join(', ')})`;
    const insertMany = db.prepare(
      `insert into "${table.name}" values ${Array(ROWS_PER_INSERT).fill(group).join(', ')}`,
    );
    const insertOne = db.prepare(`insert into "${table.name}" values ${group}`);
    const booleans = table.columns.flatMap((c, i) => (c.type === 'boolean' ? [i] : []));
    const decimals = table.columns.flatMap((c, i) => (c.type === 'decimal' ? [i] : []));
    const width = table.columns.length;
    const params: BulkRow[number][] = new Array(ROWS_PER_INSERT * width);
    const write = db.transaction((batch: BulkRow[]) => {
      for (const row of batch) {
        // better-sqlite3 binds no booleans; decimals go in as numbers, as SQLite stores them
        for (const i of booleans) row[i] = row[i] ? 1 : 0;
        for (const i of decimals) row[i] = Number(row[i]);
      }
      let i = 0;
      for (; i + ROWS_PER_INSERT <= batch.length; i += ROWS_PER_INSERT) {
        for (let r = 0; r < ROWS_PER_INSERT; r++) {
          const row = batch[i + r]!;
          for (let c = 0; c < width; c++) params[r * width + c] = row[c]!;
        }
        insertMany.run(params);
      }
      for (; i < batch.length; i++) insertOne.run(batch[i]);
    });
    for (const batch of rows) {
      write(batch);
      progress(batch.length);
      // better-sqlite3 is synchronous: let timers (a progress bar, a memory sampler) run.
      await new Promise((resolve) => setImmediate(resolve));
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
  },
  // A sampled ANALYZE: full statistics on 2.5 million rows cost seconds and change no plan here.
  analyze: (table) => ['pragma analysis_limit = 1000', `analyze "${table}"`],
  dropIndex: (name) => `drop index if exists "${name}"`,
};
