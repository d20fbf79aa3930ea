import { z } from 'zod';
import { rowSchema } from '../values.js';
import { filterArg, limitArg, orderByArg, tableArg } from './common.js';
import { toolSpec } from './spec.js';

export const AGGREGATE_FUNCTIONS = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFunction = (typeof AGGREGATE_FUNCTIONS)[number];

export const aggregateSpecSchema = z.object({
  fn: z.enum(AGGREGATE_FUNCTIONS),
  column: z.string().min(1).max(256).optional().describe('Omit for count(*).'),
  as: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/)
    // Result rows are JavaScript objects: mysql2 refuses these names and other drivers misread them.
    .refine(
      (name) => !(name in Object.prototype),
      'must not be a name JavaScript objects reserve (such as __proto__ or constructor)',
    )
    .optional()
    .describe('Output name (default fn_column).'),
});

export const aggregateInput = z.object({
  table: tableArg,
  aggregates: z.array(aggregateSpecSchema).min(1).max(32),
  group_by: z.array(z.string().min(1).max(256)).max(16).optional(),
  filter: filterArg.optional(),
  having: filterArg.optional().describe('A filter on output names, after grouping.'),
  order_by: orderByArg.optional(),
  limit: limitArg.optional(),
});

export const aggregateOutput = z.object({
  columns: z.array(z.string()),
  rows: z.array(rowSchema),
  truncated: z.boolean(),
});

export const aggregateSpec = toolSpec({
  name: 'aggregate',
  input: aggregateInput,
  output: aggregateOutput,
  values: (args, tally) => tally.filter(args.filter).filter(args.having),
});

export type AggregateSpec = z.infer<typeof aggregateSpecSchema>;
export type AggregateInput = z.infer<typeof aggregateInput>;
export type AggregateOutput = z.infer<typeof aggregateOutput>;

/**
 * An aggregate's output column: its `as`, else `fn_column`, else `count` (for count(*)). `column`
 * is the name the table spells it with, when the caller's spelling was resolved to it.
 */
export function aggregateOutputName(spec: Pick<AggregateSpec, 'fn' | 'column' | 'as'>, column = spec.column): string {
  return spec.as ?? (column === undefined ? 'count' : `${spec.fn}_${column}`);
}
