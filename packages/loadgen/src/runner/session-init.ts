import type { ResultFile } from '@mcp-db-bench/contract';
import { Random } from '@mcp-db-bench/contract';
import { SimAgent } from '../agent.js';
import type { McpClient } from '../clients/client.js';
import type { Clock } from '../drive/clock.js';
import { TASK_TABLES } from '../workloads/session-init.js';
import { timed } from './timed.js';

export type SessionInitStats = Omit<ResultFile['sessionInit'][number], 'target' | 'indexes'>;

/**
 * Cold: a new connection and a whole session start each time; warm: again on one connection.
 * Both describe the tables a task needs, as an agent does; `full` is the warm start that
 * describes every table, beside it.
 */
export async function measureSessionInit(factory: () => McpClient, clock?: Clock): Promise<SessionInitStats> {
  const cold = await timed('session init (cold)', {
    count: 20,
    warmup: 2,
    clock,
    call: async () => {
      const client = factory();
      try {
        await new SimAgent(client, new Random(1)).init(TASK_TABLES);
      } finally {
        await client.close();
      }
    },
  });
  const client = factory();
  try {
    const agent = new SimAgent(client, new Random(1));
    const warm = await timed('session init (warm)', {
      count: 50,
      warmup: 5,
      clock,
      call: () => agent.init(TASK_TABLES),
    });
    const full = await timed('session init (warm, every table)', {
      count: 20,
      warmup: 2,
      clock,
      call: () => agent.init(),
    });
    return { cold, warm, full, taskTables: [...TASK_TABLES], allTables: agent.tableNames.length };
  } finally {
    await client.close();
  }
}
