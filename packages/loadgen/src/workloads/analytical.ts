import { TOOL_NAMES } from '@mcp-db-bench/contract';
import { entityAggregate } from './analytical-entity.js';
import { tableGrouping } from './analytical-table.js';
import type { Workload } from './workload.js';

/**
 * The two kinds mixed, as an agent's analysis goes: mostly statistics about one entity's
 * related rows (`analytical-entity`, 75%), sometimes a top-10 over a whole table
 * (`analytical-table`, 25%), the question that always scans. Each call's kind is its operation
 * (`aggregate:entity`, `aggregate:table`), so the report's per-operation table splits them.
 */
export const analytical: Workload = {
  name: 'analytical',
  description: 'aggregate: analytical-entity 75%, analytical-table 25%',
  database: true,
  requires: [TOOL_NAMES.aggregate],
  next: (agent) => (agent.random.next() < 0.75 ? entityAggregate(agent) : tableGrouping(agent)),
};
