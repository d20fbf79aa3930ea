/**
 * The filter tree: what both filter forms (JSON and the expression language) mean.
 * Filters are data, never SQL text: columns are checked against the schema, operators come
 * from the closed lists below, and every value becomes a bound parameter.
 */

/** A literal a filter compares with. Big integers and decimals travel as strings. */
export type Scalar = string | number | boolean | null;

export const COMPARISON_OPS = ['=', '!=', '<', '<=', '>', '>='] as const;
export type ComparisonOp = (typeof COMPARISON_OPS)[number];

export const LIST_OPS = ['in', 'not in'] as const;
export type ListOp = (typeof LIST_OPS)[number];

export const RANGE_OPS = ['between', 'not between'] as const;
export type RangeOp = (typeof RANGE_OPS)[number];

/** `like` patterns use `%` and `_` as wildcards; a backslash makes the next character literal. */
export const PATTERN_OPS = ['like', 'not like'] as const;
export type PatternOp = (typeof PATTERN_OPS)[number];

export const NULL_OPS = ['is null', 'is not null'] as const;
export type NullOp = (typeof NULL_OPS)[number];

export const FILTER_OPS = [...COMPARISON_OPS, ...LIST_OPS, ...RANGE_OPS, ...PATTERN_OPS, ...NULL_OPS] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export type Predicate =
  | { column: string; op: ComparisonOp; value: Scalar }
  | { column: string; op: ListOp; value: Scalar[] }
  | { column: string; op: RangeOp; value: [Scalar, Scalar] }
  | { column: string; op: PatternOp; value: string }
  | { column: string; op: NullOp };

export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { not: FilterNode } | Predicate;

/** Bounds that keep a hostile filter from costing more than a bad answer. */
export const FILTER_LIMITS = {
  /** characters in an expression-language filter */
  maxExpressionLength: 8_000,
  /** nesting of and/or/not and parentheses */
  maxDepth: 32,
  /** predicates and groups in one filter */
  maxNodes: 500,
  /** values in one `in` list */
  maxListValues: 1_000,
  /** characters in one string literal */
  maxLiteralLength: 4_000,
} as const;
