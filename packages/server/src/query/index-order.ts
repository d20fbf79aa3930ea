import type { FilterNode } from '@mcp-db-bench/contract';
import type { Column, Table } from '../catalog/types.js';
import type { OrderKey } from './order.js';
import { orderable } from './select.js';

/**
 * The order `query` gives when the caller names none: the columns of the index that serves the
 * filter, after the ones the filter binds by equality, then the primary key (added by the
 * caller, `orderKeys`). Rows then come in the index's own order, so the database reads them from
 * the index and stops at the limit, instead of reading every matching row to sort them by the
 * key, or walking the key's order past rows the filter throws away.
 *
 * The choice is made from the schema alone (the introspected indexes), never from a plan: the
 * same call must give the same rows in the same order on every engine (each engine's planner
 * weighs its own statistics, and they differ), and on one engine from one page to the next (a
 * cursor is made of the order's keys). An engine whose index entries do not end with the key
 * (PostgreSQL's B-tree keeps ties in heap order) sorts only the rows that tie on the index's
 * columns; none reads past the index's range.
 *
 * The rule, over the table's ordered indexes (see `RawIndex.ordered`) and its primary key:
 * - a filter's bounds are its top-level `and` terms: `=` binds a column to one value; `<`, `<=`,
 *   `>`, `>=` and `between` bound a range; `or`, `not` and `in` bind nothing;
 * - an index serves the filter when the filter binds its first column, by equality or range;
 * - the index with the most leading columns bound by equality wins; among equals, one whose
 *   next column is bounded by a range, then one wholly bound (whose order is then the key's
 *   alone, as without an index), then the shorter, then the unique, then the first by its columns;
 * - an index whose columns after the bound ones include a nullable column the filter does not
 *   keep from being null is passed over: engines put nulls at opposite ends of an index
 *   (PostgreSQL last, the others first), so no order with nulls is served by every index.
 * No index serves the filter: the primary key alone orders, as before.
 */
export function indexOrder(table: Table, filter: FilterNode | undefined): OrderKey[] {
  if (filter === undefined || table.kind !== 'table') return [];
  const bounds = filterBounds(filter, table);
  if (bounds.equal.size === 0 && bounds.range.size === 0) return [];
  const candidates: { columns: readonly string[]; unique: boolean }[] = table.indexes.filter((i) => i.ordered);
  if (table.primaryKey.length) candidates.push({ columns: table.primaryKey, unique: true });
  let best: { score: number[]; columns: readonly string[]; after: OrderKey[] } | undefined;
  for (const index of candidates) {
    const fit = fitOf(index.columns, index.unique, table, bounds);
    if (fit && (!best || better(fit.score, index.columns, best.score, best.columns)))
      best = { ...fit, columns: index.columns };
  }
  return best?.after ?? [];
}

/** What a filter's top-level `and` terms say of each column (by its name in the table). */
export interface Bounds {
  /** bound to one value by `=` */
  equal: Set<string>;
  /** bounded by `<`, `<=`, `>`, `>=` or `between` */
  range: Set<string>;
  /** kept from being null: any comparison with a value (both filter forms refuse null as one) or `is not null` */
  notNull: Set<string>;
}

const RANGE_OPS: ReadonlySet<string> = new Set(['<', '<=', '>', '>=', 'between']);
/** the operators whose rows can never hold a null in the column */
const NOT_NULL_OPS: ReadonlySet<string> = new Set([
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'not in',
  'between',
  'not between',
  'like',
  'not like',
  'is not null',
]);

export function filterBounds(filter: FilterNode, table: Table): Bounds {
  const bounds: Bounds = { equal: new Set(), range: new Set(), notNull: new Set() };
  const visit = (node: FilterNode): void => {
    if ('and' in node) {
      for (const part of node.and) visit(part);
      return;
    }
    if ('or' in node || 'not' in node) return;
    const column = columnNamed(table, node.column);
    if (column === undefined) return;
    if (node.op === '=') bounds.equal.add(column.name);
    if (RANGE_OPS.has(node.op)) bounds.range.add(column.name);
    if (NOT_NULL_OPS.has(node.op)) bounds.notNull.add(column.name);
  };
  visit(filter);
  return bounds;
}

/** A column by the name a filter gives it, as `resolveColumn` finds it; undefined where that reports an error. */
function columnNamed(table: Table, name: string): Column | undefined {
  const exact = table.column.get(name);
  if (exact) return exact;
  const lower = name.toLowerCase();
  const matches = table.columns.filter((c) => c.name.toLowerCase() === lower);
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * How well an index serves the filter (a score, larger first) and the order it gives after the
 * bound columns; undefined when it does not serve it or cannot give an order every engine shares.
 */
function fitOf(
  names: readonly string[],
  unique: boolean,
  table: Table,
  bounds: Bounds,
): { score: number[]; after: OrderKey[] } | undefined {
  let equal = 0;
  while (equal < names.length && bounds.equal.has(names[equal]!)) equal++;
  if (equal === 0 && !bounds.range.has(names[0]!)) return undefined;
  const after: OrderKey[] = [];
  for (const name of names.slice(equal)) {
    const column = table.column.get(name);
    if (!column || !orderable(column) || (column.nullable && !bounds.notNull.has(name))) return undefined;
    // no null among the rows: sorted as a column without nulls, which the index serves
    after.push({ name, direction: 'asc', nullable: false });
  }
  const whole = after.length === 0 ? 1 : 0;
  const rangeNext = equal < names.length && bounds.range.has(names[equal]!) ? 1 : 0;
  return { score: [equal, rangeNext, whole, -names.length, unique ? 1 : 0], after };
}

function better(score: number[], columns: readonly string[], than: number[], thanColumns: readonly string[]): boolean {
  for (let i = 0; i < score.length; i++) if (score[i] !== than[i]) return score[i]! > than[i]!;
  return columns.join('\u0001') < thanColumns.join('\u0001');
}
