import type { Value } from '@mcp-db-bench/contract';
import type { SimAgent, TableKnowledge } from '../agent.js';

/** Small choices shared by workloads, all made from what the agent discovered. */

export const NUMERIC = new Set(['integer', 'decimal', 'float']);

/** Tables with a single-column key, more often the bigger ones (where agents spend their time). */
export function keyedTable(agent: SimAgent): TableKnowledge {
  const weights = agent.derive('keyed', () => {
    const keyed = [...agent.tables.values()].filter((t) => t.primaryKey.length === 1);
    if (keyed.length === 0) throw new Error('no table with a single-column primary key was discovered');
    return Object.fromEntries(keyed.map((t) => [t.name, Math.log10((t.rows ?? 1) + 10)]));
  });
  return agent.tables.get(agent.random.weighted(weights))!;
}

/** A (parent, child table, child column) link to follow, from the discovered foreign keys. */
export function someLink(agent: SimAgent): { parent: TableKnowledge; child: string; column: string } {
  const links = agent.derive('links', () => {
    const found = [...agent.tables.values()].flatMap((parent) =>
      parent.referencedBy
        .filter((r) => r.columns.length === 1)
        .map((r) => ({ parent, child: r.table, column: r.columns[0]! })),
    );
    if (found.length === 0)
      throw new Error('no foreign keys were discovered: the filtered workload needs related tables');
    return found;
  });
  return agent.random.pick(links);
}

/** A key the agent saw, as a filter value: a number stays one, anything else is compared as its text. */
export function keyValue(value: unknown): Value {
  return typeof value === 'number' ? value : String(value);
}

/** A numeric, non-key column of a table, if it has one. */
export function measureColumn(agent: SimAgent, table: TableKnowledge): string | undefined {
  const keys = new Set([...table.primaryKey, ...table.foreignKeys.flatMap((f) => f.columns)]);
  const candidates = table.columns.filter((c) => NUMERIC.has(c.type) && !keys.has(c.name));
  return candidates.length ? agent.random.pick(candidates).name : undefined;
}
