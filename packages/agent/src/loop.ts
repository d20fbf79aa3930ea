import { SimAgent } from './agent.js';
import type { McpClient } from './clients/client.js';
import type { AgentLoop } from './engine/run-step.js';
import { Random } from './random.js';
import type { Workload } from './workloads/workload.js';

/**
 * Creates one simulated agent for a workload: it opens its session (not measured), then each
 * `next()` makes one call the workload chooses from what the agent knows. Tool errors are
 * outcomes (`tool:<code>`), never latencies; transport failures throw, with a kind.
 */
export async function startAgent(workload: Workload, client: McpClient, seed: number, index: number): Promise<AgentLoop> {
  const agent = new SimAgent(client, new Random(seed * 7919 + index * 104729 + 1));
  await agent.init(workload.tables);
  return {
    async next() {
      if (workload.session) {
        await agent.init(workload.tables);
        return { op: 'session-init', ok: true };
      }
      const call = workload.next(agent);
      const result = await client.callTool(call.tool, call.args);
      if (result.isError) {
        const code = (result.data as { error?: { code?: string } } | undefined)?.error?.code ?? 'unknown';
        return { op: call.op, ok: false, errorKind: `tool:${code}` };
      }
      if (call.table) agent.observe(call.table, rowsOf(result.data));
      return { op: call.op, ok: true };
    },
    close: () => client.close(),
  };
}

function rowsOf(data: unknown): Record<string, unknown>[] {
  const d = data as { rows?: Record<string, unknown>[]; row?: Record<string, unknown> | null } | undefined;
  if (Array.isArray(d?.rows)) return d.rows;
  return d?.row ? [d.row] : [];
}
