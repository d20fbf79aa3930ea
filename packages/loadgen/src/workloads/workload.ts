import type { ToolName } from '@mcp-db-bench/contract';
import type { SimAgent } from '../agent.js';
import type { CallOutcome } from '../clients/client.js';
import type { OpOutcome } from '../drive/run-step.js';
import type { WriteLedger } from '../writes/ledger.js';

/** One tool call a workload decided on, and what to learn from its answer. */
export interface ChosenCall {
  /** operation type for the histograms, e.g. `get` or `query:fk` */
  op: string;
  tool: string;
  args: Record<string, unknown>;
  /** the table whose rows the answer holds, so the agent can remember keys */
  table?: string;
}

/**
 * One agent's course through a stateful workload: a multi-step flow where each call depends
 * on the answers before it. Each call is still one measured operation.
 */
export interface Plan {
  next(): ChosenCall;
  /** every call's outcome, before the next call is chosen */
  settle(call: ChosenCall, outcome: CallOutcome): void;
}

export interface PlanContext {
  /** the agent's number in the step, for markers unique to it */
  index: number;
  /** the step's record of acknowledged writes (write workloads only) */
  ledger: WriteLedger;
}

/** A weighted mix of tool calls, chosen at run time from what the agent discovered. */
export interface Workload {
  name: string;
  description: string;
  /** tables the agent describes at session start; undefined = every table */
  tables?: readonly string[];
  /** the tools its calls use: a target without one of them is skipped, with the reason, not failed */
  requires: readonly ToolName[];
  /** whether it touches the database (echo does not: it runs once, not per index set) */
  database: boolean;
  /**
   * Each operation is a whole session rather than one call (`next` is not used): this runs one on
   * the agent, whose first session (discovery) is opened unmeasured, and says how it ended.
   */
  session?(agent: SimAgent): Promise<OpOutcome>;
  /** it writes: the server needs --allow-writes, and the step is verified afterwards */
  writes?: boolean;
  /** the operation whose success is one committed transaction: the step's headline is commits per second */
  commits?: string;
  /** left out of the default list: it runs only when named (a unit of a study, not the everyday mix) */
  named?: boolean;
  /** the next call; may look at the agent's knowledge and previous answers */
  next(agent: SimAgent): ChosenCall;
  /** stateful workloads: a plan per agent, used instead of `next` */
  plan?(agent: SimAgent, context: PlanContext): Plan;
}
