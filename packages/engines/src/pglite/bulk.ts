import type { PGlite } from '@electric-sql/pglite';
import { delimitedText } from '../delimited.js';
import type { BulkLoader } from '../engine.js';
import { bulk as postgres } from '../postgres/bulk.js';

/** PostgreSQL's types and statements; rows go in by COPY from an in-memory file, a batch at a time. */
export const bulk: BulkLoader = {
  ...postgres,
  async load(connection, table, rows, progress) {
    const pglite = connection.driver as PGlite;
    const columns = table.columns.map((c) => `"${c.name}"`).join(', ');
    for (const batch of rows) {
      const blob = new Blob([delimitedText(batch, ['t', 'f'])]);
      await pglite.query(`copy "${table.name}" (${columns}) from '/dev/blob'`, [], { blob });
      progress(batch.length);
    }
  },
};
