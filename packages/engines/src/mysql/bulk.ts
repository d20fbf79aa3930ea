import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { Pool } from 'mysql2/promise';
import { delimitedText } from '../delimited.js';
import type { BulkLoader } from '../engine.js';

/**
 * LOAD DATA LOCAL INFILE, one statement per batch, with foreign-key and unique checks off for
 * the session (the seed verifies foreign keys once, after loading).
 */
export const bulk: BulkLoader = {
  foreignKeys: 'after',
  // Keys and their indexes are built after the load, by sorting, instead of row by row. InnoDB
  // needs an index behind every foreign key and silently adopts any index that fits, which
  // would make the optimized profile's indexes impossible to drop again; naming its own keeps
  // the profiles switchable. It also means MySQL's baseline has these fk_ indexes.
  async addForeignKeys(connection, table, constraints) {
    if (constraints.length === 0) return;
    const indexes = table.columns
      .filter((c) => c.references)
      .map((c) => sql`add index ${sql.id(`fk_${table.name}_${c.name}`)} (${sql.id(c.name)})`);
    const adds = constraints.map((c) => sql`add ${c}`);
    // One session: the checks are off for this ALTER only (seed verifies orphans itself).
    await connection.db.connection().execute(async (db) => {
      await sql`set foreign_key_checks = 0`.execute(db);
      await sql`alter table ${sql.id(table.name)} ${sql.join([...indexes, ...adds])}`.execute(db);
      await sql`set foreign_key_checks = 1`.execute(db);
    });
  },
  columnType(c) {
    if (c.type === 'integer') return c.generated ? 'int auto_increment' : 'int';
    if (c.type === 'decimal') return `decimal(${c.size},${c.scale})`;
    if (c.type === 'text') return `varchar(${c.size})`;
    if (c.type === 'boolean') return 'boolean';
    if (c.type === 'timestamp') return 'datetime';
    throw new Error(`no MySQL type for ${c.type}`);
  },
  async load(connection, table, rows, progress) {
    const pool = (connection.driver as { promise(): Pool }).promise?.() ?? (connection.driver as Pool);
    const conn = await pool.getConnection();
    try {
      await conn.query('set foreign_key_checks = 0, unique_checks = 0');
      const columns = table.columns.map((c) => `\`${c.name}\``).join(', ');
      const statement = `load data local infile 'batch.tsv' into table \`${table.name}\` character set utf8mb4 fields terminated by '\\t' escaped by '\\\\' lines terminated by '\\n' (${columns})`;
      // One statement per batch: mysql2 reads an infile stream without backpressure, so one
      // stream for a whole table would queue the table in memory. One batch in flight bounds
      // it, and the next batch is generated while the server ingests the current one.
      let inFlight: Promise<void> = Promise.resolve();
      for (const batch of rows) {
        const data = Buffer.from(delimitedText(batch, ['1', '0']));
        await inFlight;
        inFlight = conn
          .query({ sql: statement, infileStreamFactory: () => Readable.from([data]) } as never)
          .then(() => progress(batch.length));
      }
      await inFlight;
      await conn.query('set foreign_key_checks = 1, unique_checks = 1');
    } finally {
      conn.release();
    }
  },
  analyze: (table) => [`analyze table \`${table}\``],
  dropIndex: (name, table) => `drop index if exists \`${name}\` on \`${table}\``,
};
