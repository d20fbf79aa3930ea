import { TOOL_NAMES } from '@mcp-db-bench/contract';
import type { Workload } from './workload.js';

/**
 * The tables an agent's task needs, as a real agent describes them: one looking into a
 * customer's orders and their items reads these three, not the whole schema.
 */
export const TASK_TABLES: readonly string[] = ['customers', 'orders', 'order_items'];

/**
 * The whole start of an agent session, repeated: handshake or discovery, tools/list,
 * list_tables and describe_table for the tables its task needs. Each repetition is one
 * operation (see `session` below) rather than a single tool call.
 */
export const sessionInit: Workload = {
  name: 'session-init',
  description: `discover or initialize, tools/list, list_tables, describe_table for the task's tables (${TASK_TABLES.join(', ')}), on a warm connection`,
  tables: TASK_TABLES,
  database: true,
  requires: [TOOL_NAMES.listTables, TOOL_NAMES.describeTable],
  async session(agent) {
    await agent.init(TASK_TABLES);
    return { op: 'session-init', ok: true };
  },
  next() {
    throw new Error('session-init is run session by session, not call by call');
  },
};
