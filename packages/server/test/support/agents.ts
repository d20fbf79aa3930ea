import type { Client } from '@modelcontextprotocol/client';
import { callJson, connectClient } from './mcp.js';

/** Calls that each need the database (list_tables and describe_table answer from the cached schema). */
export const DATABASE_CALLS: readonly [string, Record<string, unknown>][] = [
  ['get', { table: 'orders', key: 7 }],
  ['query', { table: 'orders', filter: 'customer_id = 3', limit: 20 }],
  [
    'aggregate',
    { table: 'orders', aggregates: [{ fn: 'count' }, { fn: 'sum', column: 'total' }], group_by: ['status'] },
  ],
  ['get', { table: 'order_items', key: { order_id: 5, line_no: 1 } }],
];

/** One finished call: `ok`, the tool error's code, or `thrown` when the call failed below the tool. */
export interface CallRecord {
  agent: number;
  tool: string;
  start: number;
  end: number;
  outcome: string;
  detail?: string;
}

/**
 * Agents, each a real SDK client over Streamable HTTP with its own connection, calling tools
 * back to back (after an optional pause) until stopped, recording every call.
 */
export class Swarm {
  readonly records: CallRecord[] = [];
  #running = true;
  #loops: Promise<void>[] = [];

  private constructor(private readonly clients: Client[]) {}

  /** `database`: the name every call passes, for a server that serves several (`--url NAME=URL`). */
  static async start(endpoint: string, agents: number, pauseMs = 0, database?: string): Promise<Swarm> {
    const clients = await Promise.all(
      Array.from({ length: agents }, () => connectClient('http', 'modern', { dbUrl: '', endpoint })),
    );
    const swarm = new Swarm(clients);
    swarm.#loops = clients.map((client, agent) => swarm.#loop(client, agent, pauseMs, database));
    return swarm;
  }

  async #loop(client: Client, agent: number, pauseMs: number, database: string | undefined): Promise<void> {
    for (let i = agent; this.#running; i++) {
      const [tool, call] = DATABASE_CALLS[i % DATABASE_CALLS.length]!;
      const args = database === undefined ? call : { ...call, database };
      const start = performance.now();
      let outcome: string;
      let detail: string | undefined;
      try {
        const result = await callJson(client, tool, args);
        const error = (result.data as { error?: { code: string; message: string } }).error;
        outcome = result.isError ? (error?.code ?? 'untyped_error') : 'ok';
        detail = error?.message;
      } catch (error) {
        outcome = 'thrown';
        detail = (error as Error).message;
      }
      this.records.push({ agent, tool, start, end: performance.now(), outcome, detail });
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  /** Lets every call in flight finish, then closes the clients. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
    await Promise.all(this.clients.map((c) => c.close().catch(() => {})));
  }
}

/** Calls by outcome, e.g. `{ ok: 812, database_unavailable: 97 }`. */
export function countOutcomes(records: readonly CallRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return counts;
}

/** The q-quantile of call latencies, in ms. */
export function latencyQuantile(records: readonly CallRecord[], q: number): number {
  const sorted = records.map((r) => r.end - r.start).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : Number.NaN;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
