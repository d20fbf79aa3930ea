/**
 * A benchmark plan: targets × index rounds × workloads × agent counts × iterations, as data.
 * The commands turn their flags into one; the runner (run-plan.ts) carries it out. What only
 * the caller can do (re-index a database it owns, query it without MCP) comes in as callbacks.
 */
import type { RunDescription } from '@mcp-db-bench/contract';
import type { McpClient } from '../clients/client.js';
import type { MachineWindow } from '../drive/machine.js';
import type { AgentLoop } from '../drive/run-step.js';
import type { Workload } from '../workloads/workload.js';

/** The database behind a target through its driver alone, for the cost decomposition. */
export interface RawDriver {
  /** rows in a table */
  count(table: string): Promise<number>;
  /**
   * The statement a tool runs: `select *` where `column` = `value`; with a limit also ordered by
   * `id` and cut at `limit` rows.
   */
  select(table: string, column: string, value: number, limit?: number): Promise<void>;
  close(): Promise<void>;
}

export interface PlanTarget {
  /** how reports name it */
  label: string;
  /** an MCP server: a new client per agent (each agent owns its connection) */
  client?: () => McpClient;
  /**
   * Not an MCP server (the bare HTTP floor): agents of its own, making the same call whatever
   * the workload. Its steps set the scale, so the load-generator check leaves them out.
   */
  agent?: (index: number) => Promise<AgentLoop>;
  /** the tools it offers; an MCP target's come from tools/list; on an `agent` target, undefined = not checked */
  tools?: readonly string[];
  /** files its steps under this workload name instead of the workload's (the floor's `http-echo`) */
  fileAs?: string;
  /**
   * A database we own: sets an index set, and says what changed. Targets on one database
   * share the function, and the runner calls it once per round for all of them.
   */
  reindex?: (set: string) => Promise<{ created: number; dropped: number }>;
  /** the database's driver, opened for the cost decomposition */
  driver?: () => Promise<RawDriver>;
  /** a server this process started: the CPU its processes have used so far, µs, read around each measured window */
  serverCpuUs?: () => number;
  /** why it lacks a tool, by tool (a profile's word), for the skip reason instead of the generic one */
  cannot?: Readonly<Partial<Record<string, string>>>;
  /**
   * A target the run added for the workloads its tools serve (the bare echo floor): the others pass
   * it by unreported, since no one asked for them there.
   */
  servesOnly?: boolean;
  /**
   * Takes each step it is in, with the targets beside it, in this many turns (as `slices` does
   * for every step): the floor, so that MCP echo and it share the same stretch of time.
   */
  turns?: number;
}

export interface BenchPlan {
  /**
   * The run as its result file describes it (`config`): the runner takes its agents (and each
   * workload's own), iterations, warm-up and measured time, seed, index sets (a round each, on
   * targets that can `reindex`; none: one round as found), open-loop rate, load stages and slices
   * from here, and its result carries it as it is, so a command says each option once. What the
   * command learns during the run (a shard's agreed start, the indexes each set left) it writes
   * into this object: the result has it as it is at the end. Its `targets` are the targets the
   * file names (a target the run adds for itself, the bare floor beside MCP echo, may be left out);
   * its `workloads` the plan's, by name, in order.
   */
  config: RunDescription;
  targets: readonly PlanTarget[];
  workloads: readonly Workload[];
  /**
   * `step` (default): with one side (one target, one index set), a step's iterations run
   * back to back; with several, each iteration is a pass over every side in turn, the order
   * rotated per pass, session init and decomposition timed once. `plan`: always a pass per
   * iteration, session init and decomposition included in each.
   */
  repeat?: 'step' | 'plan';
  /** unmeasured load on each MCP target first: a fresh server compiles its hot paths */
  warmUp?: { workload: Workload; agents: number; durationMs: number };
  /** time session starts on each MCP target, every round */
  sessionInit?: boolean;
  /** time the cost decomposition, after the last round, on targets with a driver and the echo tool */
  decomposition?: boolean;
  /**
   * After the measured steps, untimed: this many seeded calls per workload replayed on every MCP
   * target, their answers compared with the first target's and their size counted in tokens.
   */
  check?: { calls: number };
  /** one of several processes that run this plan together (`run --shard`) */
  shard?: ShardPlan;
  /** what else used the machine during each step (`MachineProbe.window`): the steps' `interference` */
  machine?: () => MachineWindow | undefined;
}

/**
 * Shard `index` (0-based) of `count`: it runs the agents whose global index i has
 * i % count == index, with their global indexes (hence their seeds), and the share of the
 * open-loop rate its agents make up, so all shards together make the calls one process would.
 * Each step begins at an agreed wall-clock instant, `start` + its number × (warm-up + duration +
 * `gapMs`), so the shards load the target together however long their other work takes.
 */
export interface ShardPlan {
  index: number;
  count: number;
  /** the agreed instant (epoch ms) the first step's warm-up begins: a time given, or a barrier; asked once, before the first step */
  start: () => Promise<number>;
  /** time between steps beyond warm-up + duration, to close and connect agents (default 2000) */
  gapMs?: number;
}

export type { PlanResult, Skipped } from '@mcp-db-bench/contract';
