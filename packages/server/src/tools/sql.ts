import type { PortableType } from '@mcp-db-bench/contract';
import { type Scalar, sqlSpec, ToolError } from '@mcp-db-bench/contract';
import type { Engine } from '@mcp-db-bench/engines';
import { requireQuery, splitNamedParameters } from '../query/named-params.js';
import { bindNamed, looseRows } from '../query/raw.js';
import { effectiveLimit } from '../query/select.js';
import { defineTool, READ_ONLY } from './tool.js';

export const sqlTool = defineTool(sqlSpec, {
  title: 'Run a read-only SQL query',
  description:
    "Runs one SELECT in the database's own dialect, read-only (the database refuses writes) and rolled back; " +
    'functions that reach files, locks or other sessions are refused. ' +
    'Put values in named parameters such as `where customer_id = :id` with params {"id": 42}. ' +
    'Prefer query, get and aggregate: their output is the same on every engine; this one returns what the driver gives, made JSON-safe.',
  annotations: READ_ONLY,
  async run(args, ctx) {
    const run = ctx.engine.readOnlyStatement;
    const guard = ctx.engine.sqlGuard;
    if (!run || !guard) throw new ToolError('invalid_argument', `the sql tool is not available on ${ctx.engine.name}`);
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
    await guard(ctx.db, statement.compile(ctx.db).sql);
    const limit = effectiveLimit(args.limit, ctx.limits);
    return looseRows(await run(ctx.db, statement, limit + 1), limit);
  },
});

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
