import type pg from 'pg';
import type { Row, Value } from '../generate.js';
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
        if (!stream.write(copyText(batch))) await new Promise((r) => stream.once('drain', r));
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

/** Rows in COPY's text format: tab-separated, `\N` for null, backslash escapes. */
export function copyText(batch: Row[]): string {
  let out = '';
  for (const row of batch) {
    for (let i = 0; i < row.length; i++) {
      if (i) out += '\t';
      out += copyValue(row[i]!);
    }
    out += '\n';
  }
  return out;
}

function copyValue(v: Value): string {
  if (v === null) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(v);
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : v;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
