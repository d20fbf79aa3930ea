import { rowsOf, toolErrorCode } from '../loop.js';
import { filtered } from './filtered.js';
import { pointRead } from './point-read.js';
import type { Workload } from './workload.js';

/** The calls each session makes before its agent walks away. */
export const SESSION_CALLS = 3;

const PARTS = { 'point-read': pointRead, filtered } as const;
const WEIGHTS = { 'point-read': 50, filtered: 50 } as const;

/**
 * A fleet that never ends its sessions, as crashed agents, serverless invocations and many
 * clients leave them: each operation is one short session (initialize and notifications/initialized,
 * or on 2026-07-28 server/discover; tools/list; SESSION_CALLS point or filtered reads chosen at run
 * time from what the agent discovered), then the agent walks away without `DELETE`. A server that
 * refuses newcomers shows here as `http_503`; one that ends old sessions shows as re-initializations.
 */
export const sessionChurn: Workload = {
  name: 'session-churn',
  description: `a whole session per operation: initialize (or discover), tools/list, ${SESSION_CALLS} point or filtered reads, then gone without DELETE`,
  database: true,
  requires: [...new Set([...pointRead.requires, ...filtered.requires])],
  async session(agent) {
    const client = agent.client;
    // the session before this one (the unmeasured discovery's, or the last operation's) is left as it is
    client.abandon();
    try {
      await client.open();
      await client.listTools();
      for (let i = 0; i < SESSION_CALLS; i++) {
        const call = PARTS[agent.random.weighted(WEIGHTS)].next(agent);
        const result = await client.callTool(call.tool, call.args);
        if (result.isError) return { op: 'session-churn', ok: false, errorKind: `tool:${toolErrorCode(result)}` };
        if (call.table) agent.observe(call.table, rowsOf(result.data));
      }
      return { op: 'session-churn', ok: true };
    } finally {
      // walks away: closing the agent at the step's end must not end this session either
      client.abandon();
    }
  },
  next() {
    throw new Error('session-churn is run session by session, not call by call');
  },
};
