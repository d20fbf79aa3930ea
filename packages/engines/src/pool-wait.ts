import { ToolError } from '@mcp-db-bench/contract';

/**
 * How long a statement waits for a pooled connection by default. Agents that outnumber the
 * connections queue (a wait of a few statements' time); a wait this long means the pool is
 * stuck behind slow statements, and the agent is better told so than left hanging.
 */
export const DEFAULT_POOL_WAIT_MS = 15_000;

/**
 * A wait for a pooled connection that ran out: its own class, so that the caller of a pool with a
 * limit of its own (the sql tool's connections) can say which limit it was.
 */
export class PoolWaitExceeded extends ToolError {}

/** The tool error for a statement that got no pooled connection within the wait. */
export function poolWaitExceeded(cause?: unknown): ToolError {
  return new PoolWaitExceeded(
    'database_unavailable',
    'No database connection became free in time: every pooled connection stayed busy (or a new one took too long to open). Try again shortly; if this persists, raise --pool-size or run fewer agents at once.',
    { cause },
  );
}
