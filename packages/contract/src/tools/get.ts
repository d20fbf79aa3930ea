import { z } from 'zod';
import { rowSchema, scalarSchema } from '../values.js';
import { columnsArg, tableArg } from './common.js';
import { toolSpec } from './spec.js';

export const getInput = z.object({
  table: tableArg,
  key: z.union([scalarSchema, z.record(z.string(), scalarSchema)]).describe('{"column": value} if composite'),
  columns: columnsArg.optional(),
});

export const getOutput = z.object({
  found: z.boolean(),
  row: rowSchema.nullable(),
});

export const getSpec = toolSpec({ name: 'get', input: getInput, output: getOutput });

export type GetInput = z.infer<typeof getInput>;
export type GetOutput = z.infer<typeof getOutput>;
