import { z } from 'zod';

/**
 * What else used the machine's CPU during a step's measured window (Linux, from /proc): the
 * machine's CPU time minus this run's own processes (the load generator, the servers it started
 * and their children, the databases it names when they run on this machine), as shares of the
 * machine's capacity in the window (every CPU × the window's length). A ratio built on steps
 * other processes disturbed is withheld (`pairDisturbed`).
 */
export const stepInterference = z.object({
  /** user + system time of every other process (interrupt time left out: loopback traffic is mostly the run's own) */
  otherCpuShare: z.number(),
  /** time the hypervisor gave this machine's CPUs to other guests */
  stealShare: z.number(),
  /** this run's own processes */
  ownCpuShare: z.number(),
  /** the machine's CPU time in the window, milliseconds (CPUs × its length) */
  capacityMs: z.number(),
});

/** One of the run's own processes the interference measure leaves out, as the run found it. */
export const ownProcess = z.object({
  /** what it is: `load generator and the servers it started`, or a database's URL (redacted) */
  what: z.string(),
  /** the process whose tree is counted as the run's own */
  pid: z.number().int().optional(),
  found: z.boolean(),
  /** not found, or not looked for: why (another machine, a Unix socket, no permission to read its process) */
  reason: z.string().optional(),
});

/** The machine a run measured on, as it was during the run. */
export const machineRecord = z.object({
  cpus: z.number().int(),
  /** the 1, 5 and 15-minute load averages as the run began and as it ended */
  loadAverage: z.object({ start: z.array(z.number()), end: z.array(z.number()) }),
  /** whether each step's interference was measured, and whose CPU counted as the run's own; else why not */
  interference: z.object({
    measured: z.boolean(),
    reason: z.string().optional(),
    own: z.array(ownProcess),
  }),
});

export type StepInterference = z.infer<typeof stepInterference>;
export type OwnProcess = z.infer<typeof ownProcess>;
export type MachineRecord = z.infer<typeof machineRecord>;
