import { f, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
import type { SimAgent } from '../agent.js';
import { keyValue, measureColumn, someLink } from './pick.js';
import type { ChosenCall, Workload } from './workload.js';

/** count, and sum, avg or max of a numeric column when the table has one: what an agent asks of a table's rows. */
export function aggregatesOf(agent: SimAgent, child: string): Record<string, unknown>[] {
  const table = agent.tables.get(child);
  const measure = table ? measureColumn(agent, table) : undefined;
  return [
    { fn: 'count', as: 'n' },
    ...(measure ? [{ fn: agent.random.pick(['sum', 'avg', 'max']), column: measure }] : []),
  ];
}

/**
 * `aggregate` over one entity's related rows (a customer's orders, an order's items): how many,
 * what total. An index on the foreign key makes it a lookup (about a millisecond at scale 1).
 */
export const analyticalEntity: Workload = {
  name: 'analytical-entity',
  description: "aggregate: count and sum/avg/max of one entity's related rows, by foreign key",
  database: true,
  named: true,
  requires: [TOOL_NAMES.aggregate],
  next: (agent) => entityAggregate(agent),
};

export function entityAggregate(agent: SimAgent): ChosenCall {
  const { parent, child, column } = someLink(agent);
  const aggregates = aggregatesOf(agent, child);
  const filter = writeFilter(f.eq(column, keyValue(agent.someKey(parent.name))));
  return { op: 'aggregate:entity', tool: TOOL_NAMES.aggregate, args: { table: child, aggregates, filter } };
}
