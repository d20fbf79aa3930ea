import type { Workload } from './workload.js';

/**
 * The whole start of an agent session, repeated: handshake or discovery, tools/list,
 * list_tables and describe_table for every table. Each repetition is one operation; the
 * runner handles it (see `session` below) rather than a single tool call.
 */
export const sessionInit: Workload = {
  name: 'session-init',
  description: 'discover or initialize, tools/list, list_tables, describe_table for every table (warm connection)',
  database: true,
  session: true,
  next() {
    throw new Error('session-init is run by the agent loop, not call by call');
  },
};
