import { type GetOutput, type QueryOutput, Random } from '@mcp-db-bench/contract';
import { SimAgent } from './agent.js';
import type { McpClient, ToolCallResult } from './clients/client.js';
import { type AgentLoop, errorKindOf } from './drive/run-step.js';
import type { Plan, Workload } from './workloads/workload.js';
import type { WriteLedger } from './writes/ledger.js';

/**
 * Creates one simulated agent for a workload: it opens its session (not measured), then each
 * `next()` makes one call the workload chooses from what the agent knows. Tool errors are
 * outcomes (`tool:<code>`), never latencies; transport failures throw, with a kind. A write
 * workload needs the step's ledger, where its plan files what the server acknowledged.
 */
export async function startAgent(
  workload: Workload,
  client: McpClient,
  seed: number,
  index: number,
  ledger?: WriteLedger,
): Promise<AgentLoop> {
  const agent = new SimAgent(client, new Random(seed * 7919 + index * 104729 + 1));
  await agent.init(workload.tables);
  const session = workload.session;
  if (session) {
    return {
      next: () => session(agent),
      get reinitialized() {
        return client.reinitialized;
      },
      close: () => client.close(),
    };
  }
  if (workload.plan && !ledger) throw new Error(`the ${workload.name} workload needs a write ledger`);
  const plan = workload.plan?.(agent, { index, ledger: ledger! }) ?? { next: () => workload.next(agent), settle() {} };
  return planned(plan, agent, client);
}

/** One call per `next()`; a stateful plan sees every outcome, including calls that threw. */
function planned(plan: Plan, agent: SimAgent, client: McpClient): AgentLoop {
  return {
    async next() {
      const call = plan.next();
      let result: Awaited<ReturnType<McpClient['callTool']>>;
      try {
        result = await client.callTool(call.tool, call.args);
      } catch (error) {
        plan.settle(call, { kind: 'unknown', reason: errorKindOf(error) });
        throw error;
      }
      if (result.isError) {
        const code = toolErrorCode(result);
        plan.settle(call, { kind: 'failed', code });
        return { op: call.op, ok: false, errorKind: `tool:${code}` };
      }
      if (call.table) agent.observe(call.table, rowsOf(result.data));
      plan.settle(call, { kind: 'ok', data: result.data });
      return { op: call.op, ok: true };
    },
    get reinitialized() {
      return client.reinitialized;
    },
    close: () => client.close(),
  };
}

/** The code of a tool's `isError` answer; runs count it as `tool:<code>`. */
export const toolErrorCode = (result: ToolCallResult): string =>
  (result.data as { error?: { code?: string } } | undefined)?.error?.code ?? 'unknown';

/** The rows an answer showed the agent, to remember their keys. */
export function rowsOf(data: unknown): Record<string, unknown>[] {
  // a query's or aggregate's rows, or a get's row
  const d = data as (Partial<QueryOutput> & Partial<GetOutput>) | undefined;
  if (Array.isArray(d?.rows)) return d.rows;
  return d?.row ? [d.row] : [];
}
