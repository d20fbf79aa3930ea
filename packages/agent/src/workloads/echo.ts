import type { Workload } from './workload.js';

/** The protocol floor: a full MCP tool call that never reaches the database (server --echo). */
export const echo: Workload = {
  name: 'echo',
  description: 'the echo tool: MCP and HTTP cost with no database',
  tables: [],
  database: false,
  next: () => ({ op: 'echo', tool: 'echo', args: { message: 'ping' } }),
};
