import type { PortableType } from '@mcp-db-bench/contract';
import { type Scalar, sqlSpec, ToolError } from '@mcp-db-bench/contract';
import { DEFAULT_SQL_POLICY, type Engine, PoolWaitExceeded } from '@mcp-db-bench/engines';
import { requireQuery, splitNamedParameters } from '../query/named-params.js';
import { bindNamed, looseRows } from '../query/raw.js';
import { effectiveLimit } from '../query/select.js';
import { defineTool, READ_ONLY, type SqlConnections } from './tool.js';

export const sqlTool = defineTool(sqlSpec, {
  title: 'Run a read-only SQL query',
  description:
    "Runs one SELECT in the database's own dialect, read-only (the database refuses writes) and rolled back; " +
    'only built-in functions known to be safe run (an error names any other). ' +
    'Put values in named parameters such as `where customer_id = :id` with params {"id": 42}. ' +
    'Prefer query, get and aggregate: their output is the same on every engine; this one returns what the driver gives, made JSON-safe.',
  annotations: READ_ONLY,
  async run(args, ctx) {
    const run = ctx.engine.readOnlyStatement;
    const guard = ctx.engine.sqlGuard;
    const own = ctx.sql;
    if (!run || !guard || !own)
      throw new ToolError('invalid_argument', `the sql tool is not available on ${ctx.engine.name}`);
    // A NUL ends the text for a C parser and for the wire protocols: what runs could differ from what was checked.
    if (args.sql.includes('\u0000')) throw new ToolError('invalid_argument', 'sql: the text contains a NUL character');
    requireQuery(args.sql);
    const split = splitNamedParameters(args.sql, ctx.engine.lexicon);
    const { names } = split;
    const params = args.params ?? {};
    // Own keys only: `:constructor` must not bind Object.prototype.constructor.
    const missing = [...new Set(names.filter((n) => !Object.hasOwn(params, n)))];
    if (missing.length)
      throw new ToolError('invalid_argument', `params: no value for ${missing.map((n) => `:${n}`).join(', ')}`);
    const values = names.map((n) => bindLoose(ctx.engine, params[n]!));
    const statement = bindNamed(split, values);
    // Before it runs: what a read-only transaction still lets reach outside the database or past the call.
    await guard(ctx.db, statement.compile(ctx.db).sql, ctx.sqlPolicy ?? DEFAULT_SQL_POLICY);
    const limit = effectiveLimit(args.limit, ctx.limits);
    // On connections of its own: nothing it does to a session reaches another tool's answer.
    const rows = await run(own.db, statement, limit + 1).catch((error: unknown) => {
      throw waitExceeded(ctx.engine, error, own);
    });
    return looseRows(rows, limit);
  },
});

/** A wait for one of the sql tool's connections that ran out, said with the options that bound it; any other error as it is. */
function waitExceeded(engine: Engine, error: unknown, own: SqlConnections): unknown {
  const mapped = error instanceof ToolError ? error : engine.mapError(error);
  if (!(mapped instanceof PoolWaitExceeded)) return error;
  return new ToolError(
    'limit_exceeded',
    `sql: all ${own.poolSize} of the sql tool's connections stayed busy for ${own.waitMs} ms (--sql-wait-timeout): ` +
      'other sql calls hold them with slow statements. Try again shortly, or raise --sql-pool-size; the other tools are not affected',
    { cause: error },
  );
}

/** Without a column type, a parameter binds as what its JSON form says it is. */
function bindLoose(engine: Engine, value: Scalar): unknown {
  if (value === null) return null;
  const type: PortableType =
    typeof value === 'boolean'
      ? 'boolean'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'float'
        : 'text';
  return engine.encodeParam(type, value);
}
