import { aggregate } from './aggregate.js';
import { describeTable } from './describe-table.js';
import { echo } from './echo.js';
import { get } from './get.js';
import { listTables } from './list-tables.js';
import { query } from './query.js';
import type { ToolDefinition } from './tool.js';

/** The tools the server registers, in the order tools/list shows them. */
export const READ_TOOLS: readonly ToolDefinition[] = [listTables, describeTable, query, get, aggregate] as never;

/** Tools for benchmarking, registered on request (`--echo`). */
export const BENCH_TOOLS: readonly ToolDefinition[] = [echo] as never;

export type { Limits, ToolContext, ToolDefinition } from './tool.js';
