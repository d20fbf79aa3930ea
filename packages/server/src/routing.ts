import { listTablesOutput, TOOL_NAMES, type ToolError } from '@mcp-db-bench/contract';
import { z } from 'zod';
import { RefusedArguments } from './schemas.js';
import type { ToolOutcome } from './server.js';
import type { ToolContext, ToolDefinition } from './tools/index.js';

/** Several databases by name, in the order given: every tool that touches data takes a `database` argument naming one. */
export type NamedContexts = ReadonlyMap<string, ToolContext>;

/** A tool as served: what tools/list shows of it, and how a call with its (validated) arguments is answered. */
export interface ServedTool {
  tool: ToolDefinition;
  answer(args: unknown): Promise<ToolOutcome>;
  /** what is refused before validation, from the arguments as sent (the ceiling on bound values) */
  refuse(args: unknown): ToolError | undefined;
}

/** Runs `tool` against one database (server.ts's runTool); `database`: its name, for telemetry. */
export type RunTool = (
  tool: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
  database?: string,
) => Promise<ToolOutcome>;

/**
 * The tools over several databases, as many as over one: each that touches data gains a
 * required `database` argument (an enum of the names), and the call runs the tool unchanged
 * against that database's own context. `list_tables` takes it optionally and answers in groups,
 * `{databases: [{name, engine, tables}]}`: one call shows everything at start, and one output
 * schema serves both forms (a `list_databases` tool would cost a tool's tokens in every
 * tools/list and a round trip in every session).
 */
export function routedTools(
  contexts: NamedContexts,
  tools: readonly ToolDefinition[],
  run: RunTool,
  refuse: (tool: ToolDefinition, args: unknown, ctx: ToolContext) => ToolError | undefined,
): ServedTool[] {
  const names = [...contexts.keys()] as [string, ...string[]];
  const first = contexts.get(names[0])!;
  // The database the arguments name (the first when they name none: validation will say so).
  const named = (args: unknown) => contexts.get((args as { database?: unknown } | null)?.database as string) ?? first;
  const database = z.enum(names, { error: () => `name one of the databases: ${names.join(', ')}` });
  return tools.map((tool): ServedTool => {
    if (tool.noDatabase) return { tool, answer: (args) => run(tool, args, first), refuse: () => undefined };
    if (tool.name === TOOL_NAMES.listTables) {
      return {
        tool: { ...tool, input: tool.input.extend({ database: database.optional() }), output: GROUPED_TABLES },
        answer: (args) => listGroups(tool, args, contexts, run),
        refuse: () => undefined,
      };
    }
    return {
      tool: { ...tool, input: tool.input.extend({ database }) },
      answer: (args) => {
        // A mistake in the arguments is answered by the tool's own path (its telemetry, its error shape).
        if (args instanceof RefusedArguments) return run(tool, args, first);
        const { database: name, ...rest } = args as { database: string };
        return run(tool, rest, contexts.get(name)!, name);
      },
      refuse: (args) => refuse(tool, args, named(args)),
    };
  });
}

const GROUPED_TABLES = z.object({
  databases: z.array(z.object({ name: z.string(), engine: z.string(), tables: listTablesOutput.shape.tables })),
});

/** list_tables over the named database, or over every one in order; the first failure is the answer. */
async function listGroups(
  tool: ToolDefinition,
  args: unknown,
  contexts: NamedContexts,
  run: RunTool,
): Promise<ToolOutcome> {
  if (args instanceof RefusedArguments) return run(tool, args, contexts.values().next().value!);
  const { database: named, ...rest } = args as { database?: string };
  const names = named === undefined ? [...contexts.keys()] : [named];
  const outcomes = await Promise.all(names.map((name) => run(tool, rest, contexts.get(name)!, name)));
  const databases = [];
  for (const [i, outcome] of outcomes.entries()) {
    if (outcome.isError) return outcome;
    const name = names[i]!;
    databases.push({ name, engine: contexts.get(name)!.engine.name, tables: outcome.data.tables });
  }
  const data = { databases };
  return { isError: false, data, text: JSON.stringify(data) };
}
