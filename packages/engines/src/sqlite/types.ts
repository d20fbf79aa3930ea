import type { PortableType } from '@mcp-db-bench/contract';

/**
 * SQLite columns carry a declared type name, not a type; this follows SQLite's own
 * affinity rules, refined by the names people use for booleans, decimals and times.
 */
export function portableType(declared: string): { type: PortableType; precision: number | null; scale: number | null } {
  const t = declared.toUpperCase();
  const size = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(t);
  const none = { precision: null, scale: null };
  if (t.includes('BOOL')) return { type: 'boolean', ...none };
  if (t.includes('INT')) return { type: 'integer', ...none };
  if (t.includes('DECIMAL') || t.includes('NUMERIC') || t.includes('MONEY')) {
    return { type: 'decimal', precision: size ? Number(size[1]) : null, scale: size ? Number(size[2] ?? 0) : null };
  }
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return { type: 'float', ...none };
  if (t.includes('TIMESTAMP') || t.includes('DATETIME')) return { type: 'timestamp', ...none };
  if (t.includes('DATE')) return { type: 'date', ...none };
  if (t.includes('TIME')) return { type: 'time', ...none };
  if (t.includes('JSON')) return { type: 'json', ...none };
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT') || t.includes('UUID'))
    return { type: 'text', ...none };
  if (t.includes('BLOB') || t.includes('BINARY')) return { type: 'binary', ...none };
  return { type: 'unknown', ...none };
}

/** SQLite reports defaults as SQL text: unquote literals, name the clock functions alike. */
export function normalizeDefault(text: string | null): string | null {
  if (text === null) return null;
  let t = text.trim();
  while (t.startsWith('(') && t.endsWith(')')) t = t.slice(1, -1).trim();
  if (/^'.*'$/s.test(t)) return t.slice(1, -1).replaceAll("''", "'");
  if (/^(current_timestamp|datetime\s*\(\s*'now'\s*\))$/i.test(t)) return 'CURRENT_TIMESTAMP';
  if (/^null$/i.test(t)) return null;
  if (/^true$/i.test(t)) return '1';
  if (/^false$/i.test(t)) return '0';
  return t;
}

/** SQLite stores our timestamps as `YYYY-MM-DD HH:MM:SS[.fff]` text, which sorts correctly. */
export function timestampToStored(iso: string): string {
  // no regular expression: a filter may hold thousands
  return (iso.endsWith('Z') ? iso.slice(0, -1) : iso).replace('T', ' ');
}
