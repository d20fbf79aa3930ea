import { f, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
import { keyValue, someLink } from './pick.js';
import type { Workload } from './workload.js';

/**
 * `query` filtered by a foreign key chosen at run time: the orders of a customer, the items
 * of an order, the reviews of a product the agent saw in an earlier answer. Without an index
 * on the column every call is a scan: this is where index sets show.
 */
export const filtered: Workload = {
  name: 'filtered',
  description: 'query a child table by a foreign key, following keys seen in earlier answers',
  database: true,
  requires: [TOOL_NAMES.query],
  next(agent) {
    const { parent, child, column } = someLink(agent);
    const filter = writeFilter(f.eq(column, keyValue(agent.someKey(parent.name))));
    return { op: 'query', tool: TOOL_NAMES.query, args: { table: child, filter, limit: 20 }, table: child };
  },
};
