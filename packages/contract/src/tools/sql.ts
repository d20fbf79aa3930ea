import { z } from 'zod';
import { rowSchema, scalarSchema } from '../values.js';
import { limitArg } from './common.js';
import { toolSpec } from './spec.js';

export const sqlInput = z.object({
  sql: z
    .string()
    .min(1)
    .max(20_000)
    .describe(
      "One read-only SELECT (or WITH ... SELECT) statement in the database's own dialect. " +
        'Write values as named parameters such as :customer_id, never inline.',
    ),
  params: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/), scalarSchema)
    .optional()
    .describe('Values for the :name parameters, e.g. {"customer_id": 42}.'),
  limit: limitArg.optional(),
});

export const sqlOutput = z.object({
  columns: z.array(z.string()),
  rows: z.array(rowSchema),
  truncated: z.boolean(),
});

export const sqlSpec = toolSpec({
  name: 'sql',
  input: sqlInput,
  output: sqlOutput,
  values: (args, tally) => tally.record(args.params),
});

export type SqlInput = z.infer<typeof sqlInput>;
export type SqlOutput = z.infer<typeof sqlOutput>;
