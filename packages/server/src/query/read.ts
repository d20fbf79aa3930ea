import type { FilterNode } from '@mcp-db-bench/contract';
import type { Comparison } from '@mcp-db-bench/engines';
import type { CompiledQuery } from 'kysely';
import type { Table } from '../catalog/types.js';
import type { ToolContext } from '../tools/tool.js';
import { resolveColumn } from './names.js';

type Rows = Record<string, unknown>[];

/**
 * Runs a read of one table, on the engine's short-read path when it has one. That path is told
 * the where clause's `comparisons` (see `comparisonsOf`; asked only there), as SQLite needs them
 * to prove a read short.
 */
export async function readRows(
  ctx: Pick<ToolContext, 'db' | 'shortReads'>,
  query: CompiledQuery,
  table: Table,
  comparisons: () => readonly Comparison[] | undefined,
): Promise<Rows> {
  const { rows } = ctx.shortReads
    ? await ctx.shortReads.execute<Rows[number]>(query, table, comparisons())
    : await ctx.db.executeQuery<Rows[number]>(query);
  return rows;
}

const COMPARISON_OPS: ReadonlySet<string> = new Set(['=', '<', '<=', '>', '>=']);

/**
 * The conditions of a where clause as comparisons of real column names, when it is only
 * comparisons ANDed; `between` is the two it means (`>=` and `<=`, the bounds an index takes).
 */
export function comparisonsOf(
  where: FilterNode | undefined,
  table: Table,
  out: Comparison[] = [],
): Comparison[] | undefined {
  if (where === undefined) return out;
  if ('and' in where) return where.and.every((part) => comparisonsOf(part, table, out)) ? out : undefined;
  if ('or' in where || 'not' in where) return undefined;
  const column = () => resolveColumn(table, where.column).name;
  if (where.op === 'between') out.push({ column: column(), op: '>=' }, { column: column(), op: '<=' });
  else if (COMPARISON_OPS.has(where.op)) out.push({ column: column(), op: where.op as Comparison['op'] });
  else return undefined;
  return out;
}
