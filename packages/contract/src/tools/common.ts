import { z } from 'zod';
import { FILTER_LIMITS } from '../filter/tree.js';

export const tableArg = z
  .string()
  .min(1)
  .max(256)
  .describe('Table or view name, as listed by list_tables.');

export const columnsArg = z
  .array(z.string().min(1).max(256))
  .min(1)
  .max(500)
  .describe('Columns to return, in this order. Default: every column in table order.');

export const filterArg = z
  .union([z.string().max(FILTER_LIMITS.maxExpressionLength), z.record(z.string(), z.unknown())])
  .describe(
    'Row filter. Either an expression such as `customer_id = 42 and status in (\'paid\',\'shipped\')` ' +
      "(operators: = != <> < <= > >= in, not in, between .. and .., like, not like, is null, is not null; " +
      'combine with and, or, not and parentheses; strings in single quotes; in like, % and _ are wildcards ' +
      'and \\ escapes them), or the same as JSON: {"and": [{"column": "customer_id", "op": "=", "value": 42}, ' +
      '{"column": "status", "op": "in", "value": ["paid", "shipped"]}]} with "or" and "not" nodes.',
  );

export const orderByArg = z
  .array(z.string().min(1).max(300))
  .max(32)
  .describe('Sort keys such as ["placed_at desc", "id"]. Nulls sort first ascending, last descending.');

export const limitArg = z.number().int().min(1).max(1_000_000).describe('Maximum rows to return (default 100; capped by the server).');
