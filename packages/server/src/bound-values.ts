import { ToolError, ValueTally } from '@mcp-db-bench/contract';
import type { Engine } from '@mcp-db-bench/engines';
import type { CompiledQuery } from 'kysely';
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
 * statement, `Engine.maxParameters`, less the one a read binds for its row limit where the
 * engine binds it). Most calls are one statement, so for them the ceiling is the smaller of the
 * two; an insert splits its rows into statements under the engine's limit, so only the server's
 * bounds it. Undefined: the call is within both.
 */
export function boundValuesRefusal(tool: ToolDefinition, args: unknown, ctx: ToolContext): ToolError | undefined {
  if (!tool.values || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const tally = new ValueTally();
  tool.values(args as Record<string, unknown>, tally);
  const ceiling = ctx.limits.maxBoundValues;
  const { title } = ctx.engine;
  const maxParameters = valuesPerStatement(ctx.engine);
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

/** The most of a caller's values one statement may bind: the engine's limit, less the row limit a read binds where it is a parameter. */
export function valuesPerStatement(engine: Engine): number {
  return engine.maxParameters - (engine.limitIn === 'parameter' ? 1 : 0);
}

/**
 * Refuses a read whose statement binds more than the engine takes: within the ceiling a call's
 * values fit, but a cursor adds its keys (a keyset of k keys binds up to k(k+1)/2 values). A
 * count, never a walk: checked on the statement as made.
 */
export function checkStatementParameters(compiled: CompiledQuery, engine: Engine): CompiledQuery {
  const count = compiled.parameters.length;
  if (count <= engine.maxParameters) return compiled;
  throw new ToolError(
    'limit_exceeded',
    `the statement binds ${count} parameters (the call's values, a cursor's keys and the row limit), more than ${engine.title} takes in one statement (${engine.maxParameters}); split the call into smaller ones`,
  );
}
