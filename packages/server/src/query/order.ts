import { ToolError } from '@mcp-db-bench/contract';
import { type Expression, type RawBuilder, sql } from 'kysely';

export type Direction = 'asc' | 'desc';

export interface OrderKey {
  name: string;
  direction: Direction;
  nullable: boolean;
}

/** `"placed_at desc"` → `{ name: 'placed_at', direction: 'desc' }`. */
export function parseOrderTerm(term: string, where: string): { name: string; direction: Direction } {
  const m = /^\s*(.+?)(?:\s+(asc|desc))?\s*$/i.exec(term);
  if (!m?.[1]) throw new ToolError('invalid_argument', `${where}: expected "column" or "column asc|desc"`);
  return { name: m[1], direction: (m[2]?.toLowerCase() as Direction | undefined) ?? 'asc' };
}

/**
 * SQL for one sort key. Nulls sort first ascending and last descending on every engine: a
 * `case` term does what `nulls first` does where the engine lacks it, and only for nullable keys.
 */
export function orderTerms(expr: Expression<unknown>, key: OrderKey): RawBuilder<unknown>[] {
  const dir = sql.raw(key.direction);
  const value = sql`${expr} ${dir}`;
  return key.nullable ? [sql`case when ${expr} is null then 0 else 1 end ${dir}`, value] : [value];
}
