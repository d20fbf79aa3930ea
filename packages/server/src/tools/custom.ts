import { type PortableType, sqlOutput, ToolError, type ValueTally } from '@mcp-db-bench/contract';
import type { AnyDb, Engine } from '@mcp-db-bench/engines';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Catalog } from '../catalog/types.js';
import { ConfigError } from '../config/load.js';
import type { CustomToolConfig, ParameterConfig, ParameterType } from '../config/schema.js';
import { type NamedStatement, splitNamedParameters } from '../query/named-params.js';
import { bindNamed, looseRows } from '../query/raw.js';
import { resultTypes } from '../query/result-types.js';
import { inTransaction } from '../write/transaction.js';
import { READ_ONLY, type ToolContext, type ToolDefinition } from './tool.js';

/** What a parameter binds as. */
const BINDS: Record<ParameterType, PortableType> = {
  string: 'text',
  integer: 'integer',
  number: 'float',
  boolean: 'boolean',
};

const ARGUMENT: Record<ParameterType, () => z.ZodType> = {
  string: () => z.string(),
  integer: () => z.number().int(),
  number: () => z.number(),
  boolean: () => z.boolean(),
};

const WRITES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

const writeOutput = sqlOutput.extend({ rowsAffected: z.number().int().describe('rows the statement changed') });

/**
 * The config file's custom tools as served on `engines` (every database's), or a ConfigError
 * (prefixed `file`) for a tool that cannot be: no statement for one of them, a read-only one where
 * an engine cannot enforce it, a writing one on a read-only server.
 */
export function customTools(
  file: string,
  tools: Record<string, CustomToolConfig>,
  engines: readonly Engine[],
  allowWrites: boolean,
): ToolDefinition[] {
  return Object.entries(tools).map(([name, tool]) => {
    const at = `${file}: tools.${name}`;
    if (tool.readOnly === false && !allowWrites) {
      throw new ConfigError(
        `${at} writes (readOnly: false) and the server is read-only: start it with --allow-writes (allowWrites: true), or leave the tool out`,
      );
    }
    const splits = new Map<string, NamedStatement>();
    const texts = new Map<string, string>();
    for (const engine of engines) {
      const text = statementText(tool, engine);
      if (text === undefined) {
        throw new ConfigError(
          `${at}.sql: no statement for ${engine.name} (the file has ${Object.keys(tool.sql).join(', ')})`,
        );
      }
      if (tool.readOnly !== false && !engine.readOnlyStatement) {
        throw new ConfigError(
          `${at}: ${engine.title} has no read-only transaction to run a read-only tool in (readOnly: false for one that writes)`,
        );
      }
      splits.set(engine.name, splitNamedParameters(text, engine.lexicon));
      texts.set(engine.name, text);
    }
    return customTool(name, tool, splits, texts);
  });
}

/**
 * One custom tool: its arguments are its parameters, its answer the statement's rows. Unlike the
 * sql tool's, its text is the operator's and fixed at start (arguments are bound values), so the
 * sql guard does not vet it: the database's read-only mode is what keeps a read-only tool reading.
 * `texts`: its statement for each engine served, by engine name; `splits`: the same, split at its parameters.
 */
function customTool(
  name: string,
  tool: CustomToolConfig,
  splits: ReadonlyMap<string, NamedStatement>,
  texts: ReadonlyMap<string, string>,
): ToolDefinition {
  const parameters = Object.entries(tool.parameters ?? {});
  const input = z.strictObject(Object.fromEntries(parameters.map(([p, spec]) => [p, argument(spec)])));
  const bind = (args: Record<string, unknown>, engine: Engine) => {
    const split = splits.get(engine.name);
    // customTools checked every engine served at start; kept for the type checker.
    if (!split) throw new ToolError('invalid_argument', `${name} is not available on ${engine.name}`);
    return bindArguments(split, tool, args, engine);
  };
  const common = {
    name,
    title: tool.title ?? name,
    description: tool.description,
    input,
    // each argument binds one value (or none): more arguments than parameters are refused by the schema
    values: (args: Readonly<Record<string, unknown>>, tally: ValueTally) => tally.record(args),
  };
  if (tool.readOnly === false) {
    return {
      ...common,
      output: writeOutput,
      annotations: WRITES,
      async run(args, ctx) {
        const statement = bind(args, ctx.engine);
        const result = await inTransaction(ctx, (scope) => statement.execute(scope.db));
        const rows = (result.rows ?? []) as Record<string, unknown>[];
        const types = await columnTypes(ctx, texts.get(ctx.engine.name) ?? '');
        return { ...looseRows(rows, ctx.limits.maxRows, types), rowsAffected: Number(result.numAffectedRows ?? 0) };
      },
    };
  }
  return {
    ...common,
    output: sqlOutput,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const run = ctx.engine.readOnlyStatement;
      // customTools refused this engine at start; kept for the type checker.
      if (!run) throw new ToolError('invalid_argument', `${name} is not available on ${ctx.engine.name}`);
      const statement = bind(args, ctx.engine);
      // As many rows as the server allows: the statement's author chose its own limit.
      const limit = ctx.limits.maxRows;
      const rows = await run(ctx.db, statement, limit + 1);
      return looseRows(rows, limit, await columnTypes(ctx, texts.get(ctx.engine.name) ?? ''));
    },
  };
}

/**
 * The portable types of the statement's result columns the catalog knows (resultTypes), kept
 * per catalog: the same answer on every engine for a table's columns (a decimal with its scale,
 * a timestamp in ISO-8601 UTC), as the structured tools give them.
 */
const typesByCatalog = new WeakMap<Catalog, Map<string, ReturnType<typeof resultTypes>>>();
async function columnTypes(ctx: ToolContext, text: string) {
  const catalog = await ctx.schema.get();
  const known = typesByCatalog.get(catalog) ?? new Map<string, ReturnType<typeof resultTypes>>();
  typesByCatalog.set(catalog, known);
  const types = known.get(text) ?? resultTypes(text, catalog);
  known.set(text, types);
  return types;
}

/** The tool's statement for `engine`: the one text, or the engine's own, or its family's. */
function statementText(tool: CustomToolConfig, engine: Engine): string | undefined {
  if (typeof tool.sql === 'string') return tool.sql;
  return tool.sql[engine.name as keyof typeof tool.sql] ?? tool.sql[engine.family as keyof typeof tool.sql];
}

/** The statement with each parameter bound: the argument given, else its default, else null. */
function bindArguments(split: NamedStatement, tool: CustomToolConfig, args: Record<string, unknown>, engine: Engine) {
  return bindNamed(
    split,
    split.names.map((n) => {
      const value = args[n] ?? tool.parameters![n]!.default;
      return value === undefined || value === null
        ? null
        : engine.encodeParam(BINDS[tool.parameters![n]!.type], value as string | number | boolean);
    }),
  );
}

/**
 * Has each database served compile each custom tool's statement (its engine's `explain`, the
 * parameters at their defaults or null), so that a mistake in one (a missing column) stops the
 * server at start rather than failing every call; and a read-only tool's run read-only, as its
 * calls run it, for no row (a statement that writes is no query, and the engine's read-only path
 * refuses it: a syntax error inside its subquery, or its read-only transaction's error). A
 * ConfigError names the file, the line of the statement, the tool, the database and the
 * database's own message.
 */
export async function checkCustomTools(
  file: string,
  tools: Record<string, CustomToolConfig>,
  databases: ReadonlyMap<string, { engine: Engine; db: AnyDb }>,
  line: (path: readonly PropertyKey[]) => number,
): Promise<void> {
  const several = databases.size > 1;
  const problems: string[] = [];
  for (const [name, tool] of Object.entries(tools)) {
    for (const [database, { engine, db }] of databases) {
      const text = statementText(tool, engine);
      if (text === undefined) continue;
      const problem = await statementProblem(tool, engine, db, text);
      if (problem === undefined) continue;
      const key = typeof tool.sql === 'string' ? [] : [tool.sql[engine.name as never] ? engine.name : engine.family];
      const on = several ? `database ${database} (${engine.title})` : engine.title;
      problems.push(`${file}:${line(['tools', name, 'sql', ...key])}: tools.${name}.sql: ${on} ${problem}`);
    }
  }
  if (problems.length) throw new ConfigError(problems.join('\n'));
}

/** What the database says of a tool's statement at start, or undefined when it takes it (see checkCustomTools). */
async function statementProblem(
  tool: CustomToolConfig,
  engine: Engine,
  db: AnyDb,
  text: string,
): Promise<string | undefined> {
  const statement = () => bindArguments(splitNamedParameters(text, engine.lexicon), tool, {}, engine);
  try {
    await engine.explain?.(db, statement());
  } catch (error) {
    return `refuses the statement: ${(error as Error).message}`;
  }
  if (tool.readOnly === false || !engine.readOnlyStatement) return undefined;
  try {
    await engine.readOnlyStatement(db, statement(), 0);
    return undefined;
  } catch (error) {
    return (
      `cannot run the statement read-only: ${(error as Error).message}. A read-only tool runs one query ` +
      '(SELECT, or WITH ... SELECT); a statement that writes needs readOnly: false, and the server --allow-writes'
    );
  }
}

function argument(spec: ParameterConfig): z.ZodType {
  let schema = ARGUMENT[spec.type]();
  if (spec.description) schema = schema.describe(spec.description);
  if (spec.default !== undefined) return schema.default(spec.default as never);
  return spec.required === false ? schema.optional() : schema;
}
