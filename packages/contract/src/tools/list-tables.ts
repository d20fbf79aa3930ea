import { z } from 'zod';
import { toolSpec } from './spec.js';

export const listTablesInput = z.object({});

export const tableSummarySchema = z.object({
  name: z.string(),
  kind: z.enum(['table', 'view']),
  rows: z.number().nullable().describe('Row count: exact for small tables, the engine estimate for large ones.'),
  summary: z.string(),
});

export const listTablesOutput = z.object({ tables: z.array(tableSummarySchema) });

export const listTablesSpec = toolSpec({ name: 'list_tables', input: listTablesInput, output: listTablesOutput });

export type ListTablesInput = z.infer<typeof listTablesInput>;
export type ListTablesOutput = z.infer<typeof listTablesOutput>;
