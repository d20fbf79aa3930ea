import type { z } from 'zod';
import type { ValueTally } from '../filter/count.js';

/** A tool's contract, written once: its name and the zod schemas of its arguments and its result. */
export interface ToolSpec<
  N extends string = string,
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  readonly name: N;
  readonly input: I;
  readonly output: O;
  /**
   * Counts the values a call binds, from its arguments as sent (not yet validated: any of them
   * may be missing or of another type), so that a server refuses a call past its ceiling before
   * the work that grows with the call. Absent: the tool binds none of the caller's values.
   */
  readonly values?: (args: Readonly<Record<string, unknown>>, tally: ValueTally) => void;
}

/** Keeps the name's literal type, so `TOOL_NAMES` and the server's handlers know it. */
export function toolSpec<const N extends string, I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<N, I, O>,
): ToolSpec<N, I, O> {
  return spec;
}
