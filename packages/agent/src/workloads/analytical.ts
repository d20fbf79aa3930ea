import { f, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
import { keyValue, measureColumn, someLink } from './pick.js';
import type { Workload } from './workload.js';

/**
 * `aggregate`: mostly statistics about one entity's related rows (how many orders, what total),
 * sometimes a top-10 over a whole table, the question that always scans.
 */
export const analytical: Workload = {
  name: 'analytical',
  description: 'aggregate: per-entity count/sum/avg by foreign key, and whole-table top-10 groupings',
  database: true,
  requires: [TOOL_NAMES.aggregate],
  next(agent) {
    const { parent, child, column } = someLink(agent);
    const table = agent.tables.get(child);
    const measure = table ? measureColumn(agent, table) : undefined;
    const aggregates = [
      { fn: 'count', as: 'n' },
      ...(measure ? [{ fn: agent.random.pick(['sum', 'avg', 'max']), column: measure }] : []),
    ];
    if (agent.random.next() < 0.75) {
      const filter = writeFilter(f.eq(column, keyValue(agent.someKey(parent.name))));
      return { op: 'aggregate', tool: TOOL_NAMES.aggregate, args: { table: child, aggregates, filter } };
    }
    return {
      op: 'aggregate:top',
      tool: TOOL_NAMES.aggregate,
      args: { table: child, aggregates, group_by: [column], order_by: ['n desc'], limit: 10 },
    };
  },
};
