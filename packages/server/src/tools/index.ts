import { aggregate } from './aggregate.js';
import { deleteTool } from './delete.js';
import { describeTable } from './describe-table.js';
import { echo } from './echo.js';
import { get } from './get.js';
import { insert } from './insert.js';
import { listTables } from './list-tables.js';
import { query } from './query.js';
import { sqlTool } from './sql.js';
import { transact } from './transact.js';
import { update } from './update.js';
import type { ToolDefinition } from './tool.js';

/** The tools the server registers, in the order tools/list shows them. */
export const READ_TOOLS: readonly ToolDefinition[] = [listTables, describeTable, query, get, aggregate] as never;

/** Tools that change data, registered only with `--allow-writes`. */
export const WRITE_TOOLS: readonly ToolDefinition[] = [insert, update, deleteTool, transact] as never;

/** Caller-written read-only SQL, registered only with `--sql`. */
export const SQL_TOOLS: readonly ToolDefinition[] = [sqlTool] as never;

/** Tools for benchmarking, registered on request (`--echo`). */
export const BENCH_TOOLS: readonly ToolDefinition[] = [echo] as never;

/** The tools a server with these options registers. */
export function toolsFor(options: { allowWrites?: boolean; sql?: boolean; echo?: boolean }): readonly ToolDefinition[] {
  return [
    ...READ_TOOLS,
    ...(options.sql ? SQL_TOOLS : []),
    ...(options.allowWrites ? WRITE_TOOLS : []),
    ...(options.echo ? BENCH_TOOLS : []),
  ];
}

export type { Limits, ToolContext, ToolDefinition } from './tool.js';
