import type pg from 'pg';
import { delimitedText } from './delimited.js';
import type { Loader } from './loader.js';

/** COPY ... FROM STDIN in text format, written in large chunks with backpressure. */
export const postgresLoader: Loader = {
  family: 'postgres',
  foreignKeys: 'after',
  columnType(c) {
    if (c.type === 'integer') return 'integer';
    if (c.type === 'decimal') return `numeric(${c.size},${c.scale})`;
    if (c.type === 'text') return `varchar(${c.size})`;
    if (c.type === 'boolean') return 'boolean';
    if (c.type === 'timestamp') return 'timestamp(0)';
    throw new Error(`no PostgreSQL type for ${c.type}`);
  },
  async load(connection, table, rows, progress) {
    // Loaded here, not at import: only PostgreSQL loads need it.
    const { from } = await import('pg-copy-streams');
    const client = await (connection.driver as pg.Pool).connect();
    try {
      const columns = table.columns.map((c) => `"${c.name}"`).join(', ');
      const stream = client.query(from(`copy "${table.name}" (${columns}) from stdin`));
      const done = new Promise<void>((resolve, reject) => {
        stream.on('finish', resolve);
        stream.on('error', reject);
      });
      for (const batch of rows) {
        if (!stream.write(delimitedText(batch, ['t', 'f']))) await new Promise((r) => stream.once('drain', r));
        progress(batch.length);
      }
      stream.end();
      await done;
    } finally {
      client.release();
    }
  },
  analyze: (table) => [`analyze "${table}"`],
  dropIndex: (name) => `drop index if exists "${name}"`,
};
