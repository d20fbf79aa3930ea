import { z } from 'zod';
import { rowSchema, scalarSchema } from '../values.js';
import { columnsArg, tableArg } from './common.js';
import { toolSpec } from './spec.js';

export const getInput = z.object({
  table: tableArg,
  key: z
    .union([scalarSchema, z.record(z.string(), scalarSchema)], {
      // the union's own message is 'Invalid input': say what a key is
      error: (issue) =>
        issue.input === undefined
          ? 'required: the primary key value of the row, or {"column": value} for a composite key'
          : 'expected the primary key value (a string, number, boolean or null), or {"column": value} for a composite key',
    })
    .describe('{"column": value} if composite'),
  columns: columnsArg.optional(),
});

export const getOutput = z.object({
  found: z.boolean(),
  row: rowSchema.nullable(),
});

export const getSpec = toolSpec({
  name: 'get',
  input: getInput,
  output: getOutput,
  values: (args, tally) => (typeof args.key === 'object' && args.key !== null ? tally.record(args.key) : tally.add(1)),
});

export type GetInput = z.infer<typeof getInput>;
export type GetOutput = z.infer<typeof getOutput>;
