import { z } from 'zod';
import { rowSchema } from '../values.js';
import { columnsArg, filterArg, limitArg, orderByArg, tableArg } from './common.js';
import { toolSpec } from './spec.js';

export const queryInput = z.object({
  table: tableArg,
  columns: columnsArg.optional(),
  filter: filterArg.optional(),
  order_by: orderByArg.optional(),
  limit: limitArg.optional(),
  cursor: z.string().max(8_000).optional().describe('next_cursor of the previous page'),
});

export const queryOutput = z.object({
  columns: z.array(z.string()),
  rows: z.array(rowSchema),
  truncated: z.boolean().describe('True when more rows match than were returned.'),
  next_cursor: z.string().nullable().describe('Pass as cursor to fetch the next page; null on the last page.'),
});

export const querySpec = toolSpec({
  name: 'query',
  input: queryInput,
  output: queryOutput,
  values: (args, tally) => tally.filter(args.filter),
});

export type QueryInput = z.infer<typeof queryInput>;
export type QueryOutput = z.infer<typeof queryOutput>;
