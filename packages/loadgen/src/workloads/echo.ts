import { TOOL_NAMES } from '@mcp-db-bench/contract';
import type { Workload } from './workload.js';

/** The protocol floor: a full MCP tool call that never reaches the database (server --echo). */
export const echo: Workload = {
  name: 'echo',
  description: 'the echo tool: MCP and HTTP cost with no database',
  tables: [],
  database: false,
  requires: [TOOL_NAMES.echo],
  next: () => ({ op: 'echo', tool: TOOL_NAMES.echo, args: { message: 'ping' } }),
};
