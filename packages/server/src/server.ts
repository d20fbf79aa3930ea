import { TOOL_NAMES, TOOL_SPECS, ToolError } from '@mcp-db-bench/contract';
import { type Call, inCall, SchemaChangedError, SignalCall } from '@mcp-db-bench/engines';
import {
  type CallToolResult,
  McpServer,
  type McpServerFactory,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { boundValuesRefusal } from './bound-values.js';
import { reuseForCatalog } from './catalog/answers.js';
import { type NamedContexts, routedTools, type ServedTool } from './routing.js';
import { adaptedSchemas, InvalidArguments, RefusedArguments, refusingFirst } from './schemas.js';
import type { ToolResult } from './telemetry/index.js';
import { READ_TOOLS, type ToolContext, type ToolDefinition } from './tools/index.js';
import { VERSION } from './version.js';

/**
 * What an agent reads at session start: the tools served, in the order to use them, the
 * databases when there are several ("shop (postgres), archive (sqlite)"), and the filter grammar
 * once (the tools' own descriptions point here rather than repeat it).
 */
export function instructions(tools: readonly ToolDefinition[], databases?: string): string {
  const names = new Set(tools.map((t) => t.name));
  const served = (list: readonly string[]) => list.filter((name) => names.has(name));
  const writes = served([TOOL_NAMES.insert, TOOL_NAMES.update, TOOL_NAMES.delete, TOOL_NAMES.transact]);
  const steps = [
    served([TOOL_NAMES.listTables]),
    served([TOOL_NAMES.describeTable]),
    served([TOOL_NAMES.query, TOOL_NAMES.get, TOOL_NAMES.aggregate, TOOL_NAMES.sql]),
  ]
    .filter((step) => step.length > 0)
    .map((step) => step.join(', '));
  const filters = tools.some((t) => 'filter' in t.input.shape);
  // The config file's custom tools: answers the operator prepared, worth trying first.
  const custom = tools.filter((t) => !BUILT_IN.has(t.name));
  const writing = writes.length > 0 || custom.some((t) => t.annotations.readOnlyHint === false);
  return (
    `${writing ? 'Read and write' : 'Read-only'} access to ` +
    (databases
      ? `several relational databases: ${databases}. Name one in each call's database argument` +
        (names.has(TOOL_NAMES.listTables) ? ' (list_tables without it lists them all). ' : '. ')
      : 'one relational database. ') +
    (custom.length
      ? `Tools made for ${databases ? 'these databases' : 'this database'}: ${custom.map((t) => t.name).join(', ')}. `
      : '') +
    (steps.length ? `Use ${steps.join(', then ')}` : '') +
    (writes.length
      ? `; change data with ${writes.join(', ')} (transact: several changes that all happen or none). `
      : steps.length
        ? '. '
        : '') +
    (filters
      ? "Filters: comparisons such as customer_id = 42, status in ('paid','shipped'), total between 10 and 20, " +
        "name like 'A%' (% and _ wildcards, \\ escapes), shipped_at is null; operators = != <> < <= > >= in, not in, " +
        'between, like, not like, is null, is not null; combined with and, or, not and parentheses; strings in single quotes. ' +
        'The same as JSON: {"and": [{"column": "customer_id", "op": "=", "value": 42}]}, with "or" and "not" nodes. '
      : '') +
    'Values come back portable: big integers and decimals as strings, timestamps as ISO-8601 UTC.'
  );
}

const BUILT_IN = new Set<string>(TOOL_SPECS.map((s) => s.name));

/**
 * The tools as served over one database (`ctx`), or over several by name (routing.ts: the same
 * tools, each that touches data with a `database` argument).
 */
function servedTools(ctx: ToolContext | NamedContexts, tools: readonly ToolDefinition[]): ServedTool[] {
  if (ctx instanceof Map) return routedTools(ctx, tools, runTool, boundValuesRefusal);
  const one = ctx as ToolContext;
  return tools.map((tool) => ({
    tool,
    answer: (args) => runTool(tool, args, one),
    refuse: (args) => boundValuesRefusal(tool, args, one),
  }));
}

/** A served tool's input schema as validation runs it: what it refuses before validating (see `refusingFirst`), then the schema. */
function inputSchema({ tool, refuse }: ServedTool) {
  return refusingFirst(adaptedSchemas(tool).input, refuse);
}

/** One server definition; every transport and both protocol eras are served from it. */
export function createServerFactory(
  ctx: ToolContext | NamedContexts,
  tools: readonly ToolDefinition[] = READ_TOOLS,
): McpServerFactory {
  const served = servedTools(ctx, tools);
  const text = instructions(tools, ctx instanceof Map ? databaseList(ctx) : undefined);
  const schemas = new Map(
    served.map((s) => [s.tool, { input: inputSchema(s), output: adaptedSchemas(s.tool).output }]),
  );
  return () => {
    const server = new McpServer(
      { name: 'mcp-db-server', title: 'mcp-db-bench database server', version: VERSION },
      // The tool list is fixed for the life of the process; the SDK would otherwise advertise listChanged: true.
      { capabilities: { tools: { listChanged: false } }, instructions: text },
    );
    for (const { tool, answer } of served) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: schemas.get(tool)!.input,
          outputSchema: schemas.get(tool)!.output,
          annotations: tool.annotations,
        },
        // The SDK aborts the signal on the client's notifications/cancelled and when its transport closes.
        (args: unknown, sdk: ServerContext) => asResult(inCall(new SignalCall(sdk.mcpReq.signal), () => answer(args))),
      );
    }
    return server;
  };
}

/** "shop (postgres), archive (sqlite)" */
function databaseList(contexts: NamedContexts): string {
  return [...contexts].map(([name, ctx]) => `${name} (${ctx.engine.name})`).join(', ');
}

/**
 * Runs a tool and never throws: failures become `isError` results the agent can act on. `call`:
 * how to tell that its client went away, which cancels the statement it runs.
 */
export async function callTool(
  tool: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
  call?: Call,
): Promise<CallToolResult> {
  return asResult(call ? inCall(call, () => runTool(tool, args, ctx)) : runTool(tool, args, ctx));
}

async function asResult(pending: Promise<ToolOutcome>): Promise<CallToolResult> {
  const outcome = await pending;
  return outcome.isError
    ? { isError: true, content: [{ type: 'text', text: outcome.text }] }
    : { content: [{ type: 'text', text: outcome.text }], structuredContent: outcome.data };
}

/** A tool's answer with its JSON text, so a caller can reuse the text instead of serialising twice. */
export type ToolOutcome =
  | { isError: false; data: Record<string, unknown>; text: string }
  | { isError: true; code: string; text: string };

/** `database`: the database's name when there are several, for telemetry. */
function runTool(tool: ToolDefinition, args: unknown, ctx: ToolContext, database?: string): Promise<ToolOutcome> {
  if (!ctx.telemetry?.enabled) return runOnce(tool, args, ctx);
  return ctx.telemetry.tool(tool.name, () => runOnce(tool, args, ctx), toolResult, database);
}

/** What telemetry records of an outcome: the error's code, or the rows returned by the tools that return rows. */
function toolResult(outcome: ToolOutcome): ToolResult {
  if (outcome.isError) return { code: outcome.code };
  const { rows, row } = outcome.data;
  return { rows: Array.isArray(rows) ? rows.length : row === undefined ? undefined : row === null ? 0 : 1 };
}

async function runOnce(tool: ToolDefinition, args: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  if (tool.catalogOnly && !(args instanceof RefusedArguments))
    return reuseForCatalog(await ctx.schema.get(), tool, args, () => answer(tool, args, ctx));
  return answer(tool, args, ctx);
}

async function answer(tool: ToolDefinition, args: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  try {
    if (args instanceof RefusedArguments) throw args.toError();
    const data = (await tool.run(args as never, ctx)) as Record<string, unknown>;
    const text = JSON.stringify(data);
    checkSize(text, ctx.limits.maxResponseBytes);
    return { isError: false, data, text };
  } catch (error) {
    const failure = toToolError(error, ctx);
    return { isError: true, code: failure.code, text: JSON.stringify(failure.toJSON()) };
  }
}

/**
 * The tools as plain functions of their arguments, validated by the same adapted schema the
 * SDK uses (`args ?? {}`, as the SDK does), run as `call` (see callTool): the HTTP fast path
 * calls these directly.
 */
export function directTools(
  ctx: ToolContext | NamedContexts,
  tools: readonly ToolDefinition[] = READ_TOOLS,
): Map<string, (args: unknown, call: Call) => Promise<ToolOutcome>> {
  return new Map(
    servedTools(ctx, tools).map((served) => {
      const { tool, answer } = served;
      const validate = inputSchema(served)['~standard'].validate;
      const run = async (args: unknown) => {
        const checked = await validate(args ?? {});
        return answer(checked.issues ? new InvalidArguments(checked.issues) : checked.value);
      };
      return [tool.name, (args: unknown, call: Call) => inCall(call, () => run(args))];
    }),
  );
}

/** A UTF-16 unit is at most 3 bytes of UTF-8: count bytes only when that bound is over. */
function checkSize(text: string, limit: number): void {
  if (text.length * 3 <= limit) return;
  const bytes = Buffer.byteLength(text);
  if (bytes > limit) {
    throw new ToolError(
      'limit_exceeded',
      `the result is ${bytes} bytes of JSON, more than the server's limit of ${limit}; ask for fewer rows (limit) or fewer columns`,
    );
  }
}

function toToolError(error: unknown, ctx: ToolContext): ToolError {
  if (error instanceof ToolError) return error;
  const mapped = ctx.engine.mapError(error);
  if (mapped) {
    // The cached schema named something the database no longer has: reload it.
    if (mapped instanceof SchemaChangedError) ctx.schema.refresh().catch(() => {});
    return mapped;
  }
  process.stderr.write(`mcp-db-server: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
  return new ToolError('internal_error', `unexpected error: ${(error as Error)?.message ?? String(error)}`);
}
