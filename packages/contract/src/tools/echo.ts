import { z } from 'zod';
import { toolSpec } from './spec.js';

/** A tool that touches no database: benchmarks use it to measure the protocol's own cost. */
export const echoInput = z.object({
  message: z.string().max(10_000).optional(),
});

export const echoOutput = z.object({ message: z.string() });

export const echoSpec = toolSpec({ name: 'echo', input: echoInput, output: echoOutput });

export type EchoInput = z.infer<typeof echoInput>;
export type EchoOutput = z.infer<typeof echoOutput>;
