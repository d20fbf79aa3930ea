import { z } from 'zod';
import { PORTABLE_TYPES } from '../values.js';
import { tableArg } from './common.js';
import { toolSpec } from './spec.js';

export const describeTableInput = z.object({ table: tableArg });

export const columnSchema = z.object({
  name: z.string(),
  type: z.enum(PORTABLE_TYPES),
  /** decimal(p,s): precision and scale; null for other types */
  precision: z.number().nullable(),
  scale: z.number().nullable(),
  nullable: z.boolean(),
  /** default value: a literal as text, CURRENT_TIMESTAMP, or the engine's expression text */
  default: z.string().nullable(),
  auto_increment: z.boolean(),
});

export const foreignKeySchema = z.object({
  columns: z.array(z.string()),
  table: z.string(),
  references: z.array(z.string()),
});

export const indexSchema = z.object({ columns: z.array(z.string()), unique: z.boolean() });

export const describeTableOutput = z.object({
  name: z.string(),
  kind: z.enum(['table', 'view']),
  rows: z.number().nullable(),
  columns: z.array(columnSchema),
  primary_key: z.array(z.string()),
  foreign_keys: z.array(foreignKeySchema).describe('Columns of this table that reference another table.'),
  referenced_by: z
    .array(foreignKeySchema)
    .describe('Other tables whose columns reference this one ("table"."columns" -> this."references").'),
  indexes: z.array(indexSchema).describe('Secondary indexes and unique constraints (the primary key is not repeated).'),
});

export const describeTableSpec = toolSpec({
  name: 'describe_table',
  input: describeTableInput,
  output: describeTableOutput,
});

export type DescribeTableInput = z.infer<typeof describeTableInput>;
export type DescribeTableOutput = z.infer<typeof describeTableOutput>;
export type ColumnDescription = z.infer<typeof columnSchema>;
export type ForeignKeyDescription = z.infer<typeof foreignKeySchema>;
