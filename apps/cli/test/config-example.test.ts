import { fileURLToPath } from 'node:url';
import { MARKER_TABLE } from '@mcp-db-bench/dataset';
import { engineForUrl } from '@mcp-db-bench/engines';
import { createClient, type McpClient } from '@mcp-db-bench/loadgen';
import { SERVER_BIN } from '@mcp-db-bench/server';
import { engineOf, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

/**
 * The docs' config example (docs/examples/shop.yaml) on the benchmark dataset, as the docs run it:
 * `mcp-db-bench seed`, then the server with `--config` (which checks every custom tool's statement
 * at start), then each tool called through the SDK client; the answers computed from the seeded
 * rows. On every live engine the example has a statement for and that can be open in two processes.
 */
const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/shop.yaml', import.meta.url));
const targets = liveTargets().filter((t) => engineOf(t).readOnlyStatement && !engineOf(t).oneProcess);

describe.each(targets)('the config example on the benchmark dataset, $engine', (target) => {
  let dbUrl = '';
  let client: McpClient | undefined;
  let customers: { id: number; tier: string }[] = [];
  let orders: { customer_id: number; status: string; cents: number }[] = [];

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_config_example');
    const seeded = await runCli(['seed', '--db', dbUrl, '--scale', '0.001'], { timeoutMs: 120_000 });
    expect(seeded.code, seeded.stderr).toBe(0);
    const { db, close } = await engineForUrl(dbUrl).connect(dbUrl, { poolSize: 1 });
    try {
      customers = (await sql<{ id: unknown; tier: string }>`select id, tier from customers`.execute(db)).rows.map(
        (r) => ({ id: Number(r.id), tier: r.tier }),
      );
      orders = (
        await sql<{
          customer_id: unknown;
          status: string;
          total: unknown;
        }>`select customer_id, status, total from orders`.execute(db)
      ).rows.map((r) => ({
        customer_id: Number(r.customer_id),
        status: r.status,
        cents: Math.round(Number(r.total) * 100),
      }));
    } finally {
      await close();
    }
    client = createClient(
      {
        kind: 'stdio',
        command: process.execPath,
        args: [SERVER_BIN, '--config', EXAMPLE],
        env: { SHOP_DB_URL: dbUrl },
      },
      { client: 'sdk', protocol: 'modern' },
    );
    await client.open();
  }, 180_000);
  afterAll(async () => {
    await client?.close();
  });

  /** top_customers from the rows: spending on paid, shipped and delivered orders, best first, then by id. */
  function expectedTop(n: number, tier: string) {
    const tiers = new Map(customers.map((c) => [c.id, c.tier]));
    const spent = new Map<number, { orders: number; cents: number }>();
    for (const o of orders) {
      if (!['paid', 'shipped', 'delivered'].includes(o.status) || (tier && tiers.get(o.customer_id) !== tier)) continue;
      const s = spent.get(o.customer_id) ?? { orders: 0, cents: 0 };
      spent.set(o.customer_id, { orders: s.orders + 1, cents: s.cents + o.cents });
    }
    return [...spent]
      .sort(([a, x], [b, y]) => y.cents - x.cents || a - b)
      .slice(0, n)
      .map(([id, s]) => ({ id, orders: s.orders, cents: s.cents }));
  }

  const rowsOf = (data: unknown) =>
    (data as { rows: Record<string, unknown>[] }).rows.map((r) => ({
      id: Number(r.id),
      orders: Number(r.orders),
      cents: Math.round(Number(r.spent) * 100),
    }));

  it('serves both tools, and top_customers answers from the dataset, defaults and a tier', async () => {
    const names = (await client!.listTools()).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['top_customers', 'orders_by_status']));
    const byDefault = await client!.callTool('top_customers', {});
    expect(byDefault.isError, JSON.stringify(byDefault.data)).toBe(false);
    expect((byDefault.data as { columns: string[] }).columns).toEqual([
      'id',
      'first_name',
      'last_name',
      'tier',
      'orders',
      'spent',
    ]);
    expect(expectedTop(5, '')).toHaveLength(5);
    expect(rowsOf(byDefault.data)).toEqual(expectedTop(5, ''));
    const gold = await client!.callTool('top_customers', { n: 3, tier: 'gold' });
    expect(rowsOf(gold.data)).toEqual(expectedTop(3, 'gold'));
  });

  it("lists the dataset's tables, not the seed's marker table", async () => {
    const list = await client!.callTool('list_tables', {});
    const names = (list.data as { tables: { name: string }[] }).tables.map((t) => t.name);
    expect(names).toContain('customers');
    expect(names).not.toContain(MARKER_TABLE);
    const marker = await client!.callTool('describe_table', { table: MARKER_TABLE });
    expect(marker.isError).toBe(true);
  });

  it('orders_by_status answers from the dataset', async () => {
    const paid = await client!.callTool('orders_by_status', { status: 'delivered' });
    expect(paid.isError, JSON.stringify(paid.data)).toBe(false);
    const rows = (paid.data as { rows: { customer_id: unknown }[] }).rows;
    expect(rows).toHaveLength(Math.min(20, orders.filter((o) => o.status === 'delivered').length));
  });
});
