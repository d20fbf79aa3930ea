import { ToolError } from '@mcp-db-bench/contract';
import { throwIfAbandoned } from '@mcp-db-bench/engines';
import type { ToolContext } from '../tools/tool.js';
import type { WriteScope } from './statements.js';

/** Deadlock victims are retried this many times in all; the database rolled each attempt back. */
const ATTEMPTS = 4;

/**
 * Runs `work` in one transaction: all of it takes effect or none does. When the database
 * aborts the transaction to break a deadlock (or a serialization conflict), nothing was
 * applied, so it is safe to run again; any other failure, including a lost connection whose
 * commit may or may not have happened, is reported and never retried. A call whose client goes
 * away before the commit rolls back: its running statement is cancelled, and it commits nothing.
 */
export async function inTransaction<T>(ctx: ToolContext, work: (scope: WriteScope) => Promise<T>): Promise<T> {
  const catalog = await ctx.schema.get();
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        const done = await work({ db: trx, engine: ctx.engine, catalog, maxRows: ctx.limits.maxRows });
        throwIfAbandoned();
        return done;
      });
    } catch (error) {
      // Our own refusals (a failed guard, a cap) are final.
      if (error instanceof ToolError) throw error;
      const mapped = ctx.engine.mapError(error);
      if (mapped?.code !== 'conflict') throw error;
      if (attempt === ATTEMPTS) {
        throw new ToolError(
          'conflict',
          `${mapped.message} (still conflicting after ${ATTEMPTS} attempts; nothing was changed, try again)`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
