import { ToolError, ValueTally } from '@mcp-db-bench/contract';
import type { ToolContext, ToolDefinition } from './tools/tool.js';

/** The default of --max-bound-values: far below what any engine takes in one statement but SQL Server. */
export const DEFAULT_MAX_BOUND_VALUES = 10_000;

/**
 * The ceiling on the values one call binds (filter values, set values, inserted cells, sql and
 * custom tool parameters), checked on the arguments as sent, before they are validated: a call
 * past it is refused before any work that grows with its size. Within the limits of the filter
 * grammar one `query` can carry 499,000 values, which took a second of the event loop to
 * compile and bind, and more than any engine takes in one statement.
 *
 * Two ceilings apply, and the message names the one that stops the call: the server's, on the
 * whole call (`--max-bound-values`), and the engine's, on each statement (its parameters per
 * statement, `Engine.maxParameters`). Most calls are one statement, so for them the ceiling is
 * the smaller of the two; an insert splits its rows into statements under the engine's limit,
 * so only the server's bounds it. Undefined: the call is within both.
 */
export function boundValuesRefusal(tool: ToolDefinition, args: unknown, ctx: ToolContext): ToolError | undefined {
  if (!tool.values || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const tally = new ValueTally();
  tool.values(args as Record<string, unknown>, tally);
  const ceiling = ctx.limits.maxBoundValues;
  const { title, maxParameters } = ctx.engine;
  const over = tally.over(ceiling, maxParameters);
  if (!over) return undefined;
  const engineStops = over.statement > maxParameters && (maxParameters < ceiling || over.total <= ceiling);
  if (engineStops) {
    const which = over.statement === over.total ? 'the call binds' : 'one statement of the call binds';
    return new ToolError(
      'limit_exceeded',
      `${which} ${over.statement} values, more than ${title} takes in one statement (${maxParameters} parameters; the server's own ceiling, --max-bound-values, is ${ceiling}); split it into smaller calls`,
    );
  }
  return new ToolError(
    'limit_exceeded',
    `the call binds ${over.total} values, more than the server's ceiling of ${ceiling} (--max-bound-values, maxBoundValues in the config file); split it into smaller calls, or have the operator raise the ceiling`,
  );
}
