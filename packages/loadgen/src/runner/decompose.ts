import { type DecompositionResult, f, Random, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
import { encode, merge, summarize } from '@mcp-db-bench/report';
import type { McpClient } from '../clients/client.js';
import type { Clock } from '../drive/clock.js';
import type { RawDriver } from './plan.js';
import { timed } from './timed.js';

/** The lookups decomposed: the tool call, and the statement it runs through the driver alone. */
const OPERATIONS = [
  {
    operation: 'get orders by id',
    raw: (driver: RawDriver, id: number) => driver.select('orders', 'id', id),
    full: (client: McpClient, id: number) => client.callTool(TOOL_NAMES.get, { table: 'orders', key: id }),
  },
  {
    operation: 'query order_items by order_id',
    // the tool reads one row past its limit, to say whether the answer was cut
    raw: (driver: RawDriver, id: number) => driver.select('order_items', 'order_id', id, 21),
    full: (client: McpClient, id: number) =>
      client.callTool(TOOL_NAMES.query, { table: 'order_items', filter: writeFilter(f.eq('order_id', id)), limit: 20 }),
  },
];

/** Rounds of the three timings, 100 calls each: five give each share an interval of 93.75%. */
const ROUNDS = 5;
const PER_ROUND = 100;

/**
 * The same lookups three ways, one at a time: through the driver with no MCP, through the echo
 * tool with no database, and as the full tool call. They take turns in rounds, so a drift of the
 * machine lands on all three alike, and each round's p50s give one share of the call.
 */
export async function decompose(
  label: string,
  openDriver: () => Promise<RawDriver>,
  factory: () => McpClient,
  clock?: Clock,
): Promise<DecompositionResult[]> {
  const driver = await openDriver();
  const client = factory();
  try {
    await client.open();
    const orders = await driver.count('orders');
    const random = new Random(7);
    const times = (what: string, round: number, call: () => Promise<unknown>) =>
      timed(what, { count: PER_ROUND, warmup: round === 0 ? 50 : 10, clock, call });
    const parts = OPERATIONS.map(() => ({ raw: [] as string[], echo: [] as string[], full: [] as string[] }));
    for (let round = 0; round < ROUNDS; round++) {
      const echo = await times('echo', round, () => client.callTool(TOOL_NAMES.echo, { message: 'ping' }));
      for (const [i, op] of OPERATIONS.entries()) {
        const raw = await times(`${op.operation} (driver)`, round, () => op.raw(driver, random.int(1, orders)));
        const full = await times(`${op.operation} (MCP)`, round, () => op.full(client, random.int(1, orders)));
        parts[i]!.raw.push(raw.histogram);
        parts[i]!.echo.push(echo.histogram);
        parts[i]!.full.push(full.histogram);
      }
    }
    const all = (encoded: string[]) => ({ count: ROUNDS * PER_ROUND, histogram: encode(merge(encoded)) });
    const p50 = (encoded: string) => summarize(encoded).p50;
    return OPERATIONS.map((op, i) => {
      const part = parts[i]!;
      return {
        target: label,
        operation: op.operation,
        raw: all(part.raw),
        echo: all(part.echo),
        full: all(part.full),
        rounds: part.raw.map((_, r) => ({
          raw: p50(part.raw[r]!),
          echo: p50(part.echo[r]!),
          full: p50(part.full[r]!),
        })),
      };
    });
  } finally {
    await client.close();
    await driver.close();
  }
}
