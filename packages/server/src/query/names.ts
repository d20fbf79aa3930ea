import { ToolError } from '@mcp-db-bench/contract';
import type { Catalog, Column, Table } from '../catalog/types.js';

/** Exact name first; otherwise a unique case-insensitive match (agents often capitalise). */
function lookup<T>(map: ReadonlyMap<string, T>, name: string): T | undefined {
  const exact = map.get(name);
  if (exact) return exact;
  const lower = name.toLowerCase();
  const matches = [...map.entries()].filter(([k]) => k.toLowerCase() === lower);
  return matches.length === 1 ? matches[0]![1] : undefined;
}

function listed(names: string[]): string {
  const shown = names.slice(0, 60).join(', ');
  return names.length > 60 ? `${shown}, ... (${names.length} in all)` : shown || '(none)';
}

export function resolveTable(catalog: Catalog, name: string): Table {
  const table = lookup(catalog.table, name);
  if (table) return table;
  throw new ToolError(
    'unknown_table',
    `unknown table '${name.slice(0, 80)}'; tables: ${listed(catalog.tables.map((t) => t.name))}`,
  );
}

export function resolveColumn(table: Table, name: string, where = 'column'): Column {
  const column = lookup(table.column, name);
  if (column) return column;
  throw new ToolError(
    'unknown_column',
    `${where}: unknown column '${name.slice(0, 80)}' in ${table.name}; columns: ${listed(table.columns.map((c) => c.name))}`,
  );
}

/** The requested columns (validated, without duplicates), or every column in table order. */
export function resolveColumns(table: Table, names: readonly string[] | undefined): Column[] {
  if (!names) return table.columns;
  const seen = new Set<string>();
  return names
    .map((n, i) => resolveColumn(table, n, `columns[${i}]`))
    .filter((c) => !seen.has(c.name) && seen.add(c.name) !== undefined);
}
