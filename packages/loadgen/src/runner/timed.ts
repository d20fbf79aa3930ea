import type { OperationStats } from '@mcp-db-bench/contract';
import { type MeasureCallsOptions, measureCalls } from '../drive/measure-calls.js';

/** The stats of a sequence of timed calls; a failed call is an error here, not a data point. */
export async function timed(what: string, options: MeasureCallsOptions): Promise<OperationStats> {
  const { count, histogram, errors, firstErrors } = await measureCalls(options);
  const failed = Object.entries(errors);
  if (failed.length)
    throw new Error(`${what} failed: ${failed.map(([kind, n]) => `${n} × ${kind} (${firstErrors[kind]})`).join(', ')}`);
  return { count, histogram };
}
