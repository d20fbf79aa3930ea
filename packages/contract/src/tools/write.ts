import { z } from 'zod';
import { rowSchema, scalarSchema } from '../values.js';
import { filterArg, tableArg } from './common.js';
import { type ToolSpec, toolSpec } from './spec.js';

/** Writes are opt-in (`--allow-writes`); these bound what one call may do. */
export const WRITE_LIMITS = {
  /** rows one insert (or one insert step) may carry */
  maxInsertRows: 1_000,
  /** steps in one transact call */
  maxSteps: 50,
} as const;

const valuesArg = z.record(z.string().min(1).max(256), scalarSchema);

/** `{"add": n}` adds to the stored value inside the database, so concurrent updates never lose one. */
export const setValueSchema = z.union([
  scalarSchema,
  z.object({ add: z.union([z.number(), z.string().max(64)]) }).strict(),
]);

const setArg = z
  .record(z.string().min(1).max(256), setValueSchema)
  .refine((s) => Object.keys(s).length > 0, 'set names no column')
  .describe('New values by column, or {"add": n} to add n to a numeric column (negative to subtract).');

const requiredFilter = filterArg.describe(
  'Which rows: the same syntax as query.filter. Required: a write never touches every row by default.',
);

const maxRowsArg = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .optional()
  .describe('Refuse (changing nothing) when more rows than this would change. Default: the server row cap.');

const expectRowsArg = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe(
    'Roll back (changing nothing) unless exactly this many rows change: a guard such as "balance >= 10" then fails the call.',
  );

export const insertInput = z.object({
  table: tableArg,
  rows: z.array(valuesArg).min(1).max(WRITE_LIMITS.maxInsertRows).describe('Rows to insert, as {"column": value}.'),
});
export const insertOutput = z.object({
  inserted: z.number().int(),
  keys: z.array(rowSchema).describe('The primary key of each inserted row, in order, including generated values.'),
});

export const updateInput = z.object({ table: tableArg, set: setArg, filter: requiredFilter, max_rows: maxRowsArg });
export const updateOutput = z.object({ updated: z.number().int() });

export const deleteInput = z.object({ table: tableArg, filter: requiredFilter, max_rows: maxRowsArg });
export const deleteOutput = z.object({ deleted: z.number().int() });

export const transactStepSchema = z.discriminatedUnion('op', [
  insertInput.extend({ op: z.literal('insert') }),
  updateInput.extend({ op: z.literal('update'), expect_rows: expectRowsArg }),
  deleteInput.extend({ op: z.literal('delete'), expect_rows: expectRowsArg }),
]);

export const transactInput = z.object({
  steps: z
    .array(transactStepSchema)
    .min(1)
    .max(WRITE_LIMITS.maxSteps)
    .describe('Steps run in order in one transaction: all of them take effect, or none does.'),
});
export const transactOutput = z.object({
  results: z.array(
    z.object({
      op: z.enum(['insert', 'update', 'delete']),
      inserted: z.number().int().optional(),
      keys: z.array(rowSchema).optional(),
      updated: z.number().int().optional(),
      deleted: z.number().int().optional(),
    }),
  ),
});

/** At most `max + 1` items of `raw` when it is an array: validation refuses more, and counting them would cost. */
const upTo = (raw: unknown, max: number) => (Array.isArray(raw) ? raw.slice(0, max + 1) : []);

/** The values of one write (a call, or a transact step), counted as `ToolSpec.values` does. */
const WRITE_VALUES = {
  insert: (args, tally) => tally.rows(upTo(args.rows, WRITE_LIMITS.maxInsertRows)),
  update: (args, tally) => tally.record(args.set).filter(args.filter),
  delete: (args, tally) => tally.filter(args.filter),
} satisfies Record<string, ToolSpec['values']>;

export const insertSpec = toolSpec({
  name: 'insert',
  input: insertInput,
  output: insertOutput,
  values: WRITE_VALUES.insert,
});
export const updateSpec = toolSpec({
  name: 'update',
  input: updateInput,
  output: updateOutput,
  values: WRITE_VALUES.update,
});
export const deleteSpec = toolSpec({
  name: 'delete',
  input: deleteInput,
  output: deleteOutput,
  values: WRITE_VALUES.delete,
});
export const transactSpec = toolSpec({
  name: 'transact',
  input: transactInput,
  output: transactOutput,
  // each step is a statement of its own (an insert step, several)
  values(args, tally) {
    for (const step of upTo(args.steps, WRITE_LIMITS.maxSteps)) {
      if (typeof step !== 'object' || step === null) continue;
      const { op } = step as { op?: unknown };
      if (op === 'insert' || op === 'update' || op === 'delete') WRITE_VALUES[op](step, tally.statement());
    }
  },
});

export type SetValue = z.infer<typeof setValueSchema>;
export type InsertInput = z.infer<typeof insertInput>;
export type InsertOutput = z.infer<typeof insertOutput>;
export type UpdateInput = z.infer<typeof updateInput>;
export type UpdateOutput = z.infer<typeof updateOutput>;
export type DeleteInput = z.infer<typeof deleteInput>;
export type DeleteOutput = z.infer<typeof deleteOutput>;
export type TransactStep = z.infer<typeof transactStepSchema>;
export type TransactInput = z.infer<typeof transactInput>;
export type TransactOutput = z.infer<typeof transactOutput>;
