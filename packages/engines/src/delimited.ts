import type { BulkRow } from './engine.js';

type Value = BulkRow[number];

/**
 * Rows as tab-separated text with `\N` for null and backslash escapes: the format both
 * PostgreSQL's COPY and MySQL's LOAD DATA read. Only booleans are spelled differently.
 */
export function delimitedText(batch: readonly BulkRow[], booleans: readonly [string, string]): string {
  let out = '';
  for (const row of batch) {
    for (let i = 0; i < row.length; i++) {
      if (i) out += '\t';
      out += field(row[i]!, booleans);
    }
    out += '\n';
  }
  return out;
}

function field(v: Value, [yes, no]: readonly [string, string]): string {
  if (v === null) return '\\N';
  if (typeof v === 'boolean') return v ? yes : no;
  if (typeof v === 'number') return String(v);
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : v;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
