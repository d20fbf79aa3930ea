import { aggregate } from './aggregate.js';
import { deleteTool } from './delete.js';
import { describeTable } from './describe-table.js';
import { echo } from './echo.js';
import { get } from './get.js';
import { insert } from './insert.js';
import { listTables } from './list-tables.js';
import { query } from './query.js';
import { sqlTool } from './sql.js';
import type { ToolDefinition } from './tool.js';
import { transact } from './transact.js';
import { update } from './update.js';

/** The tools the server registers, in the order tools/list shows them. */
export const READ_TOOLS: readonly ToolDefinition[] = [listTables, describeTable, query, get, aggregate] as never;

/** Tools that change data, registered only with `--allow-writes`. */
export const WRITE_TOOLS: readonly ToolDefinition[] = [insert, update, deleteTool, transact] as never;

/** Caller-written read-only SQL, registered only with `--sql`. */
export const SQL_TOOLS: readonly ToolDefinition[] = [sqlTool] as never;

/** Tools for benchmarking, registered on request (`--echo`). */
export const BENCH_TOOLS: readonly ToolDefinition[] = [echo] as never;

/**
 * The tools a server with these options registers: the flags' tools and the config file's custom
 * tools (`custom`, already built for the engine), narrowed by `tools` (see selectTools).
 */
export function toolsFor(
  options: { allowWrites?: boolean; sql?: boolean; echo?: boolean; tools?: string },
  custom: readonly ToolDefinition[] = [],
): readonly ToolDefinition[] {
  const registered = [
    ...READ_TOOLS,
    ...(options.sql ? SQL_TOOLS : []),
    ...(options.allowWrites ? WRITE_TOOLS : []),
    ...(options.echo ? BENCH_TOOLS : []),
    ...custom,
  ];
  return options.tools === undefined ? registered : selectTools(registered, options.tools, custom);
}

/** `--tools` sets, by name: each expands to its tools (those the flags register); `custom` and `all` also take the config file's. */
export const TOOL_SETS: Readonly<Record<string, readonly ToolDefinition[]>> = {
  read: READ_TOOLS,
  minimal: READ_TOOLS.filter((t) => ['list_tables', 'describe_table', 'query'].includes(t.name)),
  write: WRITE_TOOLS,
  all: [...READ_TOOLS, ...SQL_TOOLS, ...WRITE_TOOLS, ...BENCH_TOOLS],
};

/** The flag that registers each optional tool. */
const ENABLED_BY = new Map<string, string>([
  ...WRITE_TOOLS.map((t) => [t.name, '--allow-writes'] as const),
  ...SQL_TOOLS.map((t) => [t.name, '--sql'] as const),
  ...BENCH_TOOLS.map((t) => [t.name, '--echo'] as const),
]);

/**
 * The registered tools that `list` names (tool names and set names, comma-separated), in
 * registration order. A set takes those of its tools that are registered; a tool named alone must
 * be, or the flag it needs is named. Throws ToolSelectionError.
 */
export function selectTools(
  registered: readonly ToolDefinition[],
  list: string,
  custom: readonly ToolDefinition[] = [],
): readonly ToolDefinition[] {
  const wanted = new Set<ToolDefinition>();
  /** the flags that would register the tools of the sets named that are not registered */
  const needed = new Set<string>();
  const known = [...TOOL_SETS.all!, ...custom];
  const sets: Record<string, readonly ToolDefinition[]> = { ...TOOL_SETS, all: known, custom };
  for (const name of list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)) {
    const set = sets[name];
    if (set) {
      for (const tool of set) {
        if (registered.includes(tool)) wanted.add(tool);
        else if (ENABLED_BY.has(tool.name)) needed.add(ENABLED_BY.get(tool.name)!);
      }
      continue;
    }
    const tool = known.find((t) => t.name === name);
    if (!tool) {
      throw new ToolSelectionError(
        `--tools: no tool or set named ${name} (tools: ${known.map((t) => t.name).join(', ')}; sets: ${Object.keys(sets).join(', ')})`,
      );
    }
    if (!registered.includes(tool)) throw new ToolSelectionError(`--tools: ${name} needs ${ENABLED_BY.get(name)}`);
    wanted.add(tool);
  }
  if (wanted.size === 0) {
    const hint = needed.size ? `: its tools need ${[...needed].join(' or ')}` : '';
    throw new ToolSelectionError(`--tools ${JSON.stringify(list)} selects no tool${hint}`);
  }
  return registered.filter((t) => wanted.has(t));
}

/** A `--tools` list that cannot be served: a command-line mistake. */
export class ToolSelectionError extends Error {}

export type { Limits, ToolContext, ToolDefinition } from './tool.js';
