import { type DecompositionResult, f, Random, TOOL_NAMES, writeFilter } from '@mcp-db-bench/contract';
import { encode, merge, summarize } from '@mcp-db-bench/report';
import type { McpClient, ToolCallResult } from '../clients/client.js';
import type { Clock } from '../drive/clock.js';
import type { RawDriver } from './plan.js';
import { timed } from './timed.js';

/**
 * The lookups decomposed: the tool call (through a peer's profile, the peer's own call), and the
 * statement it runs through the driver alone.
 */
const OPERATIONS = [
  {
    operation: 'get orders by id',
    raw: (driver: RawDriver, id: number) => driver.select('orders', 'id', id),
    full: (client: McpClient, id: number) => answered(client.callTool(TOOL_NAMES.get, { table: 'orders', key: id })),
  },
  {
    operation: 'query order_items by order_id',
    // the tool reads one row past its limit, to say whether the answer was cut (the peers' profiles do too)
    raw: (driver: RawDriver, id: number) => driver.select('order_items', 'order_id', id, 21),
    full: (client: McpClient, id: number) =>
      answered(
        client.callTool(TOOL_NAMES.query, {
          table: 'order_items',
          filter: writeFilter(f.eq('order_id', id)),
          limit: 20,
        }),
      ),
  },
];

/** A tool error is a failed call here, never a time (a peer that cannot serve the lookup has no decomposition). */
async function answered(call: Promise<ToolCallResult>): Promise<void> {
  const r = await call;
  if (r.isError) throw new Error(`the tool answered an error: ${JSON.stringify(r.data).slice(0, 200)}`);
}

/** Rounds of the three timings, 100 calls each: five give each share an interval of 93.75%. */
const ROUNDS = 5;
const PER_ROUND = 100;

/** A server to decompose: its database's driver, a client, and its protocol floor (the echo tool, or ping). */
export interface Decomposed {
  label: string;
  driver: () => Promise<RawDriver>;
  client: () => McpClient;
  floor: 'echo' | 'ping';
}

/** A server's decomposition, or why it has none (a failed call: the others go on without it). */
export type Decomposition = { label: string; results: DecompositionResult[] } | { label: string; failed: string };

interface Opened {
  spec: Decomposed;
  /** why its rounds stopped */
  failed?: string;
  driver: RawDriver;
  client: McpClient;
  orders: number;
  random: Random;
  parts: { raw: string[]; echo: string[]; full: string[] }[];
}

/**
 * The same lookups three ways, one at a time: through the driver with no MCP, through the echo
 * tool (or MCP ping) with no database, and as the full tool call. They take turns in rounds, and
 * so do the servers, in an order rotated each round, so a drift of the machine lands on every
 * part and every server alike; each round's p50s give one share of the call.
 */
export async function decompose(targets: readonly Decomposed[], clock?: Clock): Promise<Decomposition[]> {
  const opened: Opened[] = [];
  try {
    for (const spec of targets) opened.push(await open(spec));
    for (let round = 0; round < ROUNDS; round++) {
      const at = round % opened.length;
      for (const o of [...opened.slice(at), ...opened.slice(0, at)]) {
        if (o.failed) continue;
        try {
          await timeRound(o, round, clock);
        } catch (error) {
          o.failed = (error as Error).message;
        }
      }
    }
    return opened.map((o) =>
      o.failed ? { label: o.spec.label, failed: o.failed } : { label: o.spec.label, results: results(o) },
    );
  } finally {
    for (const o of opened) {
      await o.client.close().catch(() => {});
      await o.driver.close().catch(() => {});
    }
  }
}

async function open(spec: Decomposed): Promise<Opened> {
  const driver = await spec.driver();
  const client = spec.client();
  const o = { spec, driver, client, orders: 1, random: new Random(7), parts: OPERATIONS.map(() => emptyParts()) };
  try {
    // as an agent begins: the tools listed (a profile learns what the peer serves from them)
    await client.open();
    await client.listTools();
    o.orders = await driver.count('orders');
    return o;
  } catch (error) {
    await client.close().catch(() => {});
    await driver.close().catch(() => {});
    throw error;
  }
}

const emptyParts = () => ({ raw: [] as string[], echo: [] as string[], full: [] as string[] });

/** One round on one server: its floor, then each operation through the driver and through the server. */
async function timeRound(o: Opened, round: number, clock: Clock | undefined): Promise<void> {
  const times = (what: string, call: () => Promise<unknown>) =>
    timed(what, { count: PER_ROUND, warmup: round === 0 ? 50 : 10, clock, call });
  const { client, driver, random } = o;
  const floor =
    o.spec.floor === 'ping'
      ? await times('ping', () => client.ping!())
      : await times('echo', () => client.callTool(TOOL_NAMES.echo, { message: 'ping' }));
  for (const [i, op] of OPERATIONS.entries()) {
    const raw = await times(`${op.operation} (driver)`, () => op.raw(driver, random.int(1, o.orders)));
    const full = await times(`${op.operation} (MCP)`, () => op.full(client, random.int(1, o.orders)));
    o.parts[i]!.raw.push(raw.histogram);
    o.parts[i]!.echo.push(floor.histogram);
    o.parts[i]!.full.push(full.histogram);
  }
}

function results(o: Opened): DecompositionResult[] {
  const all = (encoded: string[]) => ({ count: ROUNDS * PER_ROUND, histogram: encode(merge(encoded)) });
  const p50 = (encoded: string) => summarize(encoded).p50;
  return OPERATIONS.map((op, i) => {
    const part = o.parts[i]!;
    return {
      target: o.spec.label,
      operation: op.operation,
      raw: all(part.raw),
      echo: all(part.echo),
      full: all(part.full),
      rounds: part.raw.map((_, r) => ({
        raw: p50(part.raw[r]!),
        echo: p50(part.echo[r]!),
        full: p50(part.full[r]!),
      })),
      ...(o.spec.floor === 'ping' ? { floor: 'ping' as const } : {}),
    };
  });
}
