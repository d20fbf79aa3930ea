import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callJson,
  connectClient,
  type Era,
  type HttpServer,
  MODERN_REVISION,
  startHttpServer,
  type TransportKind,
} from './support/mcp.js';
import { loadShop, shopRows } from './support/shop.js';

/**
 * Every tool, through a real MCP client, over stdio (the built bin) and HTTP, in both
 * protocol eras, against every live engine. Expected answers come from the fixture rows
 * themselves, rendered by the portable rules, not from a previous run.
 */
const MODES: [TransportKind, Era][] = [
  ['stdio', 'modern'],
  ['stdio', 'legacy'],
  ['http', 'modern'],
  ['http', 'legacy'],
];

const rows = shopRows();
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const portableInt = (v: unknown) =>
  v === null ? null : BigInt(v as string | number) > MAX_SAFE ? String(v) : Number(v);
const iso = (v: string) => v.replace(/\.?0+Z$/, 'Z').replace(/(\d\d:\d\d:\d\d)Z$/, '$1Z');
// biome-ignore lint/suspicious/noExplicitAny: fixture rows are checked by value, not by type
type R = Record<string, any>;
const portableOrder = (o: R): R => ({
  ...o,
  big: portableInt(o.big),
  placed_at: iso(o.placed_at as string),
});
const orders: R[] = rows.orders!.map(portableOrder);
const customers: R[] = rows.customers!.map((c) => ({ ...c, created_at: iso(c.created_at as string) }));

/** Outputs of the same calls on every engine and mode, compared at the end. */
const transcripts = new Map<string, Map<string, unknown>>();

const targets = liveTargets();

describe.each(targets)('$engine', (target) => {
  let dbUrl = '';
  let http: HttpServer | undefined;

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_tools');
    await loadShop(dbUrl);
  });
  afterAll(async () => {
    await http?.stop();
  });

  describe.each(MODES)('%s %s', (kind, era) => {
    let client: Client;
    const transcript = new Map<string, unknown>();
    transcripts.set(`${target.engine} ${kind} ${era}`, transcript);
    const call = async (label: string, name: string, args: Record<string, unknown>) => {
      const outcome = await callJson(client, name, args);
      transcript.set(label, outcome);
      return outcome;
    };
    const ok = async (label: string, name: string, args: Record<string, unknown>) => {
      const outcome = await call(label, name, args);
      expect(outcome.isError, JSON.stringify(outcome.data)).toBe(false);
      return outcome.data as R;
    };
    const fails = async (label: string, name: string, args: Record<string, unknown>, code: string) => {
      const outcome = await call(label, name, args);
      expect(outcome.isError).toBe(true);
      expect((outcome.data as { error: { code: string } }).error.code).toBe(code);
      return (outcome.data as { error: { message: string } }).error.message;
    };

    beforeAll(async () => {
      // Started once the stdio servers are gone: an embedded engine may allow one process at a time.
      if (kind === 'http') http ??= await startHttpServer(dbUrl);
      client = await connectClient(kind, era, { dbUrl, endpoint: http?.endpoint });
    });
    afterAll(async () => {
      await client?.close();
    });

    it('speaks the pinned protocol era', () => {
      expect(client.getProtocolEra()).toBe(era);
      if (era === 'modern') expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_REVISION);
    });

    it('lists the read tools with honest annotations and schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['list_tables', 'describe_table', 'query', 'get', 'aggregate']);
      for (const t of tools) {
        expect(t.annotations).toMatchObject({
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        });
        expect(t.outputSchema?.type).toBe('object');
        expect(t.description?.length).toBeGreaterThan(20);
      }
    });

    it('list_tables: tables, views, exact small counts, summaries', async () => {
      const data = await ok('list_tables', 'list_tables', {});
      expect(data.tables).toEqual([
        { name: 'customers', kind: 'table', rows: 24, summary: '6 columns; key id; referenced by orders' },
        {
          name: 'order_items',
          kind: 'table',
          rows: rows.order_items!.length,
          summary: '5 columns; key order_id, line_no; references orders',
        },
        {
          name: 'orders',
          kind: 'table',
          rows: 90,
          summary: '7 columns; key id; references customers; referenced by order_items',
        },
        { name: 'paid_orders', kind: 'view', rows: null, summary: '3 columns' },
      ]);
    });

    it('describe_table: portable types, defaults, keys both ways, indexes', async () => {
      const data = await ok('describe orders', 'describe_table', { table: 'orders' });
      expect(data.columns.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
        'id:integer',
        'customer_id:integer',
        'status:text',
        'total:decimal',
        'big:integer',
        'placed_at:timestamp',
        'note:text',
      ]);
      expect(data.columns.find((c: { name: string }) => c.name === 'status')).toMatchObject({
        default: 'pending',
        nullable: false,
      });
      expect(data.columns.find((c: { name: string }) => c.name === 'total')).toMatchObject({ precision: 12, scale: 2 });
      expect(data.primary_key).toEqual(['id']);
      expect(data.foreign_keys).toEqual([{ columns: ['customer_id'], table: 'customers', references: ['id'] }]);
      expect(data.referenced_by).toEqual([{ columns: ['order_id'], table: 'order_items', references: ['id'] }]);
      expect(data.indexes).toEqual([
        { columns: ['customer_id'], unique: false },
        { columns: ['status', 'placed_at'], unique: false },
      ]);
      const items = await ok('describe order_items', 'describe_table', { table: 'ORDER_ITEMS' });
      expect(items.name).toBe('order_items');
      expect(items.primary_key).toEqual(['order_id', 'line_no']);
      const view = await ok('describe paid_orders', 'describe_table', { table: 'paid_orders' });
      expect(view).toMatchObject({ kind: 'view', primary_key: [], rows: null });
    });

    it('query: a foreign-key filter in both forms gives the same rows in key order', async () => {
      const expected = orders.filter((o) => o.customer_id === 3);
      const text = await ok('query fk text', 'query', { table: 'orders', filter: 'customer_id = 3' });
      expect(text.rows).toEqual(expected);
      expect(text).toMatchObject({ truncated: false, next_cursor: null });
      const json = await ok('query fk json', 'query', {
        table: 'orders',
        filter: { column: 'customer_id', op: '=', value: 3 },
      });
      expect(json).toEqual(text);
    });

    it('query: columns, is null, in, comparisons on decimals, ordering and limit', async () => {
      const noEmail = await ok('query is null', 'query', {
        table: 'customers',
        columns: ['id', 'name'],
        filter: 'email is null',
      });
      expect(noEmail.columns).toEqual(['id', 'name']);
      expect(noEmail.rows).toEqual(customers.filter((c) => c.email === null).map(({ id, name }) => ({ id, name })));

      const top = await ok('query in/order', 'query', {
        table: 'orders',
        columns: ['id', 'total'],
        filter: "status in ('paid', 'shipped') and total > 100",
        order_by: ['total desc'],
        limit: 5,
      });
      const expected = orders
        .filter((o) => (o.status === 'paid' || o.status === 'shipped') && Number(o.total) > 100)
        .sort((a, b) => Number(b.total) - Number(a.total) || (a.id as number) - (b.id as number));
      expect(top.rows).toEqual(expected.slice(0, 5).map(({ id, total }) => ({ id, total })));
      expect(top.truncated).toBe(expected.length > 5);
    });

    it('query: integers past 2^53 come back as exact strings and filter exactly', async () => {
      const data = await ok('query bigints', 'query', {
        table: 'orders',
        columns: ['id', 'big'],
        filter: "big > '9007199254740991'",
      });
      const expected = orders.filter((o) => typeof o.big === 'string').map(({ id, big }) => ({ id, big }));
      expect(expected.length).toBeGreaterThan(3);
      expect(data.rows).toEqual(expected);
      const one = await ok('query bigint eq', 'query', {
        table: 'orders',
        columns: ['id'],
        filter: 'big = 9007199254741060',
      });
      expect(one.rows).toEqual([{ id: 71 }]);
    });

    it('query: like with unicode and escaped wildcards, not, between on timestamps', async () => {
      const zoe = await ok('query like unicode', 'query', {
        table: 'customers',
        columns: ['name'],
        filter: "name like 'Zo%'",
      });
      expect(zoe.rows).toEqual(
        customers.filter((c) => (c.name as string).startsWith('Zo')).map(({ name }) => ({ name })),
      );
      const percent = await ok('query like escape', 'query', {
        table: 'orders',
        columns: ['id'],
        filter: "note like '%100\\% \\_done%'",
      });
      expect(percent.rows).toEqual(
        orders.filter((o) => (o.note as string | null)?.includes('100% _done')).map(({ id }) => ({ id })),
      );
      const notPaid = await ok('query not', 'query', {
        table: 'orders',
        columns: ['id'],
        filter: "not (status = 'paid' or status = 'shipped')",
        limit: 1000,
      });
      expect(notPaid.rows).toEqual(
        orders.filter((o) => o.status !== 'paid' && o.status !== 'shipped').map(({ id }) => ({ id })),
      );
      const jan = await ok('query between ts', 'query', {
        table: 'orders',
        columns: ['id', 'placed_at'],
        filter: "placed_at between '2023-01-02T00:00:00Z' and '2023-01-05T12:00:00.005Z'",
      });
      const lo = Date.parse('2023-01-02T00:00:00Z');
      const hi = Date.parse('2023-01-05T12:00:00.005Z');
      expect(jan.rows).toEqual(
        orders
          .filter((o) => Date.parse(o.placed_at as string) >= lo && Date.parse(o.placed_at as string) <= hi)
          .map(({ id, placed_at }) => ({ id, placed_at })),
      );
    });

    it('query: keyset pagination walks every row once, nulls included', async () => {
      for (const order of ['placed_at desc', 'note desc', 'note']) {
        const seen: unknown[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await ok(`page ${order} ${pages}`, 'query', {
            table: 'orders',
            columns: ['id', 'note'],
            order_by: [order],
            limit: 7,
            ...(cursor ? { cursor } : {}),
          });
          seen.push(...page.rows);
          cursor = page.next_cursor ?? undefined;
          expect(page.truncated).toBe(cursor !== undefined);
          pages++;
        } while (cursor && pages < 50);
        const all = await ok(`all ${order}`, 'query', {
          table: 'orders',
          columns: ['id', 'note'],
          order_by: [order],
          limit: 1000,
        });
        expect(seen).toEqual(all.rows);
        expect(new Set(seen.map((r) => (r as { id: number }).id)).size).toBe(90);
      }
      const first = await ok('nulls first', 'query', {
        table: 'orders',
        columns: ['id', 'note'],
        order_by: ['note'],
        limit: 3,
      });
      expect(first.rows.map((r: { note: unknown }) => r.note)).toEqual([null, null, null]);
    });

    it('get: by key, by composite key, and a miss', async () => {
      const seven = await ok('get 7', 'get', { table: 'orders', key: 7 });
      expect(seven).toEqual({ found: true, row: orders[6] });
      const item = await ok('get composite', 'get', {
        table: 'order_items',
        key: { order_id: 7, line_no: 2 },
        columns: ['sku', 'qty'],
      });
      const expected = rows.order_items!.find((r) => r.order_id === 7 && r.line_no === 2)!;
      expect(item).toEqual({ found: true, row: { sku: expected.sku, qty: expected.qty } });
      expect(await ok('get miss', 'get', { table: 'customers', key: 999 })).toEqual({ found: false, row: null });
      const c2 = await ok('get customer', 'get', { table: 'customers', key: '2' });
      expect(c2.row).toEqual(customers[1]);
    });

    it('aggregate: grouped counts, sums with scale, averages, min/max, having', async () => {
      const byStatus = await ok('agg status', 'aggregate', {
        table: 'orders',
        aggregates: [{ fn: 'count' }],
        group_by: ['status'],
      });
      const counts = new Map<string, number>();
      for (const o of orders) counts.set(o.status as string, (counts.get(o.status as string) ?? 0) + 1);
      expect(byStatus.columns).toEqual(['status', 'count']);
      expect(byStatus.rows).toEqual([...counts.entries()].sort().map(([status, count]) => ({ status, count })));

      const totals = await ok('agg totals', 'aggregate', {
        table: 'orders',
        aggregates: [
          { fn: 'sum', column: 'total' },
          { fn: 'avg', column: 'total', as: 'mean' },
          { fn: 'min', column: 'placed_at' },
          { fn: 'max', column: 'big' },
          { fn: 'count', column: 'note' },
        ],
      });
      const cents = orders.reduce((s, o) => s + Math.round(Number(o.total) * 100), 0);
      expect(totals.rows).toEqual([
        {
          sum_total: (cents / 100).toFixed(2),
          mean: Number((cents / 100 / 90).toFixed(6)),
          min_placed_at: orders[0]!.placed_at,
          max_big: '9007199254741070',
          count_note: orders.filter((o) => o.note !== null).length,
        },
      ]);

      const busy = await ok('agg having', 'aggregate', {
        table: 'orders',
        aggregates: [
          { fn: 'count', as: 'n' },
          { fn: 'sum', column: 'total' },
        ],
        group_by: ['customer_id'],
        having: 'n >= 5',
        order_by: ['n desc'],
        limit: 3,
      });
      const per = new Map<number, { n: number; cents: number }>();
      for (const o of orders) {
        const e = per.get(o.customer_id as number) ?? { n: 0, cents: 0 };
        e.n++;
        e.cents += Math.round(Number(o.total) * 100);
        per.set(o.customer_id as number, e);
      }
      const expected = [...per.entries()]
        .filter(([, e]) => e.n >= 5)
        .sort((a, b) => b[1].n - a[1].n || a[0] - b[0])
        .map(([customer_id, e]) => ({ customer_id, n: e.n, sum_total: (e.cents / 100).toFixed(2) }));
      expect(busy.rows).toEqual(expected.slice(0, 3));
      expect(busy.truncated).toBe(expected.length > 3);
    });

    it('views are ordered by every column when they have no key', async () => {
      const data = await ok('query view', 'query', { table: 'paid_orders', limit: 1000 });
      const expected = orders
        .filter((o) => o.status === 'paid')
        .map(({ id, customer_id, total }) => ({ id, customer_id, total }));
      expect(data.rows).toEqual(expected);
    });

    it('errors are tool results with a code and an actionable message', async () => {
      expect(await fails('err table', 'query', { table: 'ordrs' }, 'unknown_table')).toMatch(
        /tables: customers, order_items, orders, paid_orders/,
      );
      expect(
        await fails('err column', 'query', { table: 'orders', filter: 'custmer_id = 1' }, 'unknown_column'),
      ).toMatch(/columns: id, customer_id/);
      expect(
        await fails('err syntax', 'query', { table: 'orders', filter: 'id = 1; drop table orders' }, 'invalid_filter'),
      ).toMatch(/;/);
      expect(await fails('err type', 'query', { table: 'orders', filter: "id = 'abc'" }, 'type_mismatch')).toMatch(
        /integer/,
      );
      await fails('err cursor', 'query', { table: 'orders', cursor: 'bm90LWEtY3Vyc29y' }, 'invalid_cursor');
      const page = await ok('cursor source', 'query', { table: 'orders', limit: 2 });
      await fails(
        'err cursor reuse',
        'query',
        { table: 'customers', limit: 2, cursor: page.next_cursor },
        'invalid_cursor',
      );
      await fails('err get view', 'get', { table: 'paid_orders', key: 1 }, 'invalid_argument');
      await fails('err get composite', 'get', { table: 'order_items', key: 7 }, 'invalid_argument');
      await fails('err like int', 'query', { table: 'orders', filter: "id like '1%'" }, 'type_mismatch');
      await fails(
        'err sum text',
        'aggregate',
        { table: 'orders', aggregates: [{ fn: 'sum', column: 'status' }] },
        'type_mismatch',
      );
      await fails('err order', 'query', { table: 'orders', order_by: ['nope desc'] }, 'unknown_column');
      // The table is still there and intact after the injection attempt.
      expect(
        (await ok('after injection', 'query', { table: 'orders', columns: ['id'], limit: 1000 })).rows,
      ).toHaveLength(90);
    });

    it('arguments that break the input schema are tool errors naming each problem', async () => {
      const message = await fails(
        'err schema',
        'query',
        { table: 'orders', limit: 'ten', columns: [5] },
        'invalid_argument',
      );
      expect(message).toMatch(/limit: .*expected number/);
      expect(message).toMatch(/columns\.0: .*expected string/);
      await fails('err schema missing', 'get', { table: 'orders' }, 'invalid_argument');
    });
  });
});

describe('parity', () => {
  it('every engine, transport and era answered every call identically', () => {
    const [reference, ...others] = [...transcripts.entries()];
    expect(reference).toBeDefined();
    for (const [name, transcript] of others) {
      for (const [label, outcome] of reference![1]) {
        expect(transcript.get(label), `${name}: ${label}`).toEqual(outcome);
      }
    }
  });
});
