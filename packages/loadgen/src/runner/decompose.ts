import { type DecompositionResult, f, Random, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
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

/**
 * The same lookups three ways, one at a time: through the driver with no MCP, through the
 * echo tool with no database, and as the full tool call.
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
    const times = (what: string, call: () => Promise<unknown>) => timed(what, { count: 500, warmup: 50, clock, call });
    const echo = await times('echo', () => client.callTool(TOOL_NAMES.echo, { message: 'ping' }));
    const results: DecompositionResult[] = [];
    for (const op of OPERATIONS) {
      const raw = await times(`${op.operation} (driver)`, () => op.raw(driver, random.int(1, orders)));
      const full = await times(`${op.operation} (MCP)`, () => op.full(client, random.int(1, orders)));
      results.push({ target: label, operation: op.operation, raw, echo, full });
    }
    return results;
  } finally {
    await client.close();
    await driver.close();
  }
}
