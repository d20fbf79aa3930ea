import { type FilterNode, type QueryInput, type QueryOutput, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
import type { McpClient } from '../clients/client.js';

/** Every row of a table that matches a filter, page by page through the query tool's cursor. */
export async function readAll(
  client: McpClient,
  table: string,
  columns: readonly string[],
  filter?: FilterNode,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const args: QueryInput = {
      table,
      columns: [...columns],
      limit: 1000,
      ...(filter ? { filter: writeFilter(filter) } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const result = await client.callTool(TOOL_NAMES.query, args);
    if (result.isError) throw new Error(`reading ${table} back failed: ${JSON.stringify(result.data).slice(0, 300)}`);
    const page = result.data as QueryOutput;
    rows.push(...page.rows);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

/** A decimal as whole cents: "12.50" and 12.5 are both 1250 (the tables use two decimals). */
export function toCents(value: unknown): number {
  const n = Math.round(Number(value) * 100);
  if (!Number.isFinite(n)) throw new Error(`not a money amount: ${JSON.stringify(value)}`);
  return n;
}

/** Cents as the portable decimal string a write sends: 1250 -> "12.50", -5 -> "-0.05". */
export function fromCents(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
