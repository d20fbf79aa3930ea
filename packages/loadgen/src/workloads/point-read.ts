import { TOOL_NAMES } from '@mcp-db-bench/contract';
import { keyedTable } from './pick.js';
import type { Workload } from './workload.js';

/** `get` by primary key: the cheapest thing an agent does, and the one most exposed to overhead. */
export const pointRead: Workload = {
  name: 'point-read',
  description: 'get one row by primary key, from keys seen earlier or inside the row count',
  database: true,
  requires: [TOOL_NAMES.get],
  next(agent) {
    const table = keyedTable(agent);
    return {
      op: 'get',
      tool: TOOL_NAMES.get,
      args: { table: table.name, key: agent.someKey(table.name) },
      table: table.name,
    };
  },
};
