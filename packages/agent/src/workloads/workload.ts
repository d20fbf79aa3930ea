import type { SimAgent } from '../agent.js';

/** One tool call a workload decided on, and what to learn from its answer. */
export interface Call {
  /** operation type for the histograms, e.g. `get` or `query:fk` */
  op: string;
  tool: string;
  args: Record<string, unknown>;
  /** the table whose rows the answer holds, so the agent can remember keys */
  table?: string;
}

/** A weighted mix of tool calls, chosen at run time from what the agent discovered. */
export interface Workload {
  name: string;
  description: string;
  /** tables the agent describes at session start; undefined = every table */
  tables?: readonly string[];
  /** whether it touches the database (echo does not: it runs once, not per index profile) */
  database: boolean;
  /** each operation is a whole session start rather than one call (`next` is not used) */
  session?: boolean;
  /** the next call; may look at the agent's knowledge and previous answers */
  next(agent: SimAgent): Call;
}
