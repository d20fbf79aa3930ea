import { listTablesSpec } from '@mcp-db-bench/contract';
import type { Table } from '../catalog/types.js';
import { defineTool, READ_ONLY } from './tool.js';

export const listTables = defineTool(listTablesSpec, {
  title: 'List tables',
  description: 'Tables and views you can read, with row counts, keys and relations. Start here.',
  annotations: READ_ONLY,
  catalogOnly: true,
  async run(_args, ctx) {
    const catalog = await ctx.schema.get();
    return {
      tables: catalog.tables.map((t) => ({ name: t.name, kind: t.kind, rows: t.rows, summary: summarize(t) })),
    };
  },
});

/** "5 columns; key id; references customers; referenced by order_items, reviews" */
export function summarize(t: Table): string {
  const parts = [`${t.columns.length} columns`];
  if (t.primaryKey.length) parts.push(`key ${t.primaryKey.join(', ')}`);
  const refs = unique(t.foreignKeys.map((f) => f.table));
  if (refs.length) parts.push(`references ${refs.join(', ')}`);
  const by = unique(t.referencedBy.map((f) => f.table));
  if (by.length) parts.push(`referenced by ${by.join(', ')}`);
  return parts.join('; ');
}

const unique = (xs: string[]) => [...new Set(xs)];
