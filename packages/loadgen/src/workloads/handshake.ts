import type { Workload } from './workload.js';

/**
 * The handshake alone, as a host does it before any tool call: on the 2025 era initialize and
 * notifications/initialized, on 2026-07-28 server/discover; then tools/list. Nothing else, so
 * no database is touched: it runs once, not per index set. Each operation opens a new
 * session on the agent's warm connection; the one it replaces is ended (DELETE) in batches on a
 * side connection, as session-init's starts are, so the server never holds many.
 */
export const handshake: Workload = {
  name: 'handshake',
  description: 'initialize (or server/discover) and tools/list, nothing else, on a warm connection',
  tables: [],
  database: false,
  named: true,
  requires: [],
  async session(agent) {
    await agent.client.open();
    await agent.client.listTools();
    return { op: 'handshake', ok: true };
  },
  next() {
    throw new Error('handshake is run session by session, not call by call');
  },
};
