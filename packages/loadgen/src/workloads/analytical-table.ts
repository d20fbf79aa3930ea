import { TOOL_NAMES } from '@mcp-db-bench/contract';
import type { SimAgent } from '../agent.js';
import { aggregatesOf } from './analytical-entity.js';
import { someLink } from './pick.js';
import type { ChosenCall, Workload } from './workload.js';

/**
 * `aggregate` grouped over a whole table, its top 10 groups (the customers with the most
 * orders): the question that always reads every row, whatever the indexes (at scale 1, 1 ms
 * for a small table to 3 s for the largest).
 */
export const analyticalTable: Workload = {
  name: 'analytical-table',
  description: 'aggregate: a whole-table grouping by foreign key, its top 10 groups by count',
  database: true,
  named: true,
  requires: [TOOL_NAMES.aggregate],
  next: (agent) => tableGrouping(agent),
};

export function tableGrouping(agent: SimAgent): ChosenCall {
  const { child, column } = someLink(agent);
  return {
    op: 'aggregate:table',
    tool: TOOL_NAMES.aggregate,
    args: { table: child, aggregates: aggregatesOf(agent, child), group_by: [column], order_by: ['n desc'], limit: 10 },
  };
}
