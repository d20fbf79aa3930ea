/**
 * A small builder for filter trees, so code that sends filters builds data instead of text:
 * `f.and(f.eq('customer_id', 42), f.in('status', ['paid', 'shipped']))`. Groups come out
 * canonical (nested groups of the same kind merged, one child unwrapped), as the parser makes them.
 */
import { filterError, groupNode } from './parse.js';
import type { FilterNode, Predicate, Scalar } from './tree.js';

/** A value a comparison can hold: null never compares true, so `isNull` says that instead. */
export type Value = Exclude<Scalar, null>;

const group = (kind: 'and' | 'or', nodes: FilterNode[]): FilterNode => {
  if (nodes.length === 0) throw filterError(`filter: an empty ${kind} group`);
  return groupNode(kind, nodes);
};

export const f = {
  eq: (column: string, value: Value): Predicate => ({ column, op: '=', value }),
  ne: (column: string, value: Value): Predicate => ({ column, op: '!=', value }),
  lt: (column: string, value: Value): Predicate => ({ column, op: '<', value }),
  lte: (column: string, value: Value): Predicate => ({ column, op: '<=', value }),
  gt: (column: string, value: Value): Predicate => ({ column, op: '>', value }),
  gte: (column: string, value: Value): Predicate => ({ column, op: '>=', value }),
  in: (column: string, values: readonly Value[]): Predicate => ({ column, op: 'in', value: [...values] }),
  notIn: (column: string, values: readonly Value[]): Predicate => ({ column, op: 'not in', value: [...values] }),
  between: (column: string, low: Value, high: Value): Predicate => ({ column, op: 'between', value: [low, high] }),
  notBetween: (column: string, low: Value, high: Value): Predicate => ({
    column,
    op: 'not between',
    value: [low, high],
  }),
  like: (column: string, pattern: string): Predicate => ({ column, op: 'like', value: pattern }),
  notLike: (column: string, pattern: string): Predicate => ({ column, op: 'not like', value: pattern }),
  isNull: (column: string): Predicate => ({ column, op: 'is null' }),
  isNotNull: (column: string): Predicate => ({ column, op: 'is not null' }),
  and: (...nodes: FilterNode[]): FilterNode => group('and', nodes),
  or: (...nodes: FilterNode[]): FilterNode => group('or', nodes),
  not: (node: FilterNode): FilterNode => ({ not: node }),
} as const;
