import type { z } from 'zod';

/** A tool's contract, written once: its name and the zod schemas of its arguments and its result. */
export interface ToolSpec<
  N extends string = string,
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
> {
  readonly name: N;
  readonly input: I;
  readonly output: O;
}

/** Keeps the name's literal type, so `TOOL_NAMES` and the server's handlers know it. */
export function toolSpec<const N extends string, I extends z.ZodObject, O extends z.ZodObject>(
  spec: ToolSpec<N, I, O>,
): ToolSpec<N, I, O> {
  return spec;
}
