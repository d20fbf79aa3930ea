import { describe, expect, it } from 'vitest';
import type { McpClient, ToolCallResult, ToolInfo } from '../src/clients/client.js';
import { addDecimal, faucet, faucetFilter, faucetLiteral } from '../src/peers/faucet/index.js';
import { PeerClient } from '../src/peers/index.js';

describe("Faucet's literals, as its filter parser reads them back", () => {
  it('quotes strings by doubling quotes only: a backslash is an ordinary character there', () => {
    expect(faucetLiteral("O'Brien")).toBe("'O''Brien'");
    expect(faucetLiteral("x' OR 1=1 --")).toBe("'x'' OR 1=1 --'");
    expect(faucetLiteral("a\\'b")).toBe("'a\\''b'");
    expect(faucetLiteral('line\nbreak 🚀')).toBe("'line\nbreak 🚀'");
  });

  it('writes numbers in its syntax and booleans as true/false', () => {
    expect(faucetLiteral(42)).toBe('42');
    expect(faucetLiteral(-1.5)).toBe('-1.5');
    expect(faucetLiteral(-0)).toBe('0');
    expect(faucetLiteral(true)).toBe('true');
  });

  it('refuses what it would read as another value, or cannot read', () => {
    expect(() => faucetLiteral('a\0b')).toThrow(/NUL/);
    expect(() => faucetLiteral('\uD800x')).toThrow(/lone surrogate/);
    expect(() => faucetLiteral(1e21)).toThrow(RangeError);
    expect(() => faucetLiteral(1e-7)).toThrow(/no exponent/);
    expect(() => faucetLiteral(2 ** 53)).toThrow(/exactly/);
    expect(() => faucetLiteral(Number.NaN)).toThrow(RangeError);
    expect(() => faucetLiteral(null)).toThrow(/is null/);
    expect(() => faucetLiteral({ a: 1 })).toThrow(RangeError);
  });
});

describe('our filter as Faucet’s', () => {
  const columns = new Set(['customer_id', 'status', 'memo', 'id', 'in', 'select']);

  it('translates column op literal joined by and, like included', () => {
    expect(faucetFilter("customer_id = 42 and status <> 'a'' and id = ''1'", columns)).toBe(
      "customer_id = 42 AND status <> 'a'' and id = ''1'",
    );
    expect(faucetFilter("memo like 'run:ab1:%'", columns)).toBe("memo LIKE 'run:ab1:%'");
    expect(faucetFilter("memo NOT LIKE 'x%'", columns)).toBe("memo NOT LIKE 'x%'");
    // past 2^53 our grammar keeps a number's digits as a string: on a numeric column it goes as a number, which
    // Faucet reads as int64, exact; on a text column it stays a string
    expect(faucetFilter('id = 12345678901234567890', columns, new Set(['id']))).toBe('id = 12345678901234567890');
    expect(faucetFilter('memo = 12345678901234567890', columns, new Set(['id']))).toBe("memo = '12345678901234567890'");
    expect(faucetFilter({ column: 'status', op: '!=', value: true }, columns)).toBe('status <> true');
  });

  it('leaves out what Faucet would read differently or cannot name', () => {
    expect(faucetFilter('customer_id = 1 or status = 2', columns)).toBeUndefined();
    expect(faucetFilter('nope = 1', columns)).toBeUndefined();
    expect(faucetFilter("memo like 'a\\%'", columns)).toBeUndefined();
    expect(faucetFilter('"in" = 1', columns)).toBeUndefined();
    expect(faucetFilter('customer_id in (1, 2)', columns)).toBeUndefined();
    expect(faucetFilter('not customer_id = 1', columns)).toBeUndefined();
    expect(faucetFilter('select = 1', columns)).toBeUndefined();
    expect(() => faucetFilter("memo = 'a\0'", columns)).toThrow(/NUL/);
    // what our grammar refuses fails as our server's answer does
    expect(() => faucetFilter('in = 1', columns)).toThrow(expect.objectContaining({ code: 'invalid_filter' }));
  });
});

describe('{"add": n} summed exactly', () => {
  it('adds decimals as decimals, integers as numbers', () => {
    expect(addDecimal('12.50', '-0.05')).toBe('12.45');
    expect(addDecimal(12.5, '-0.05')).toBe('12.45');
    expect(addDecimal(0.1, 0.2)).toBe('0.3');
    expect(addDecimal('0.05', '-0.10')).toBe('-0.05');
    expect(addDecimal(3, 4)).toBe(7);
  });

  it('refuses what is not a plain decimal', () => {
    expect(() => addDecimal(null, 1)).toThrow(RangeError);
    expect(() => addDecimal('abc', 1)).toThrow(RangeError);
    expect(() => addDecimal(1e21, 1)).toThrow(RangeError);
  });
});

/** Faucet's answers as its source shapes them (model.TableSchema), Go's nil slices as null. */
const SCHEMAS: Record<string, unknown> = {
  customers: {
    name: 'customers',
    type: 'table',
    columns: [
      {
        name: 'id',
        position: 1,
        db_type: 'INTEGER',
        nullable: false,
        is_primary_key: true,
        is_auto_increment: true,
        is_unique: false,
      },
    ],
    primary_key: ['id'],
    foreign_keys: null,
    indexes: null,
  },
  orders: {
    name: 'orders',
    type: 'table',
    columns: [
      {
        name: 'id',
        position: 1,
        db_type: 'INTEGER',
        nullable: false,
        is_primary_key: true,
        is_auto_increment: false,
        is_unique: false,
      },
      {
        name: 'customer_id',
        position: 2,
        db_type: 'INTEGER',
        nullable: false,
        is_primary_key: false,
        is_auto_increment: false,
        is_unique: false,
      },
      {
        name: 'total',
        position: 3,
        db_type: 'DECIMAL(12,2)',
        nullable: true,
        default: '0',
        is_primary_key: false,
        is_auto_increment: false,
        is_unique: false,
      },
    ],
    primary_key: ['id'],
    foreign_keys: [
      {
        name: 'fk_orders_customer_id',
        column_name: 'customer_id',
        referenced_table: 'customers',
        referenced_column: 'id',
        on_delete: 'NO ACTION',
        on_update: 'NO ACTION',
      },
    ],
    indexes: [{ name: 'orders_customer', columns: ['customer_id'], is_unique: false }],
  },
};

function fakeFaucet(tools: ToolInfo[]): McpClient & { calls: [string, Record<string, unknown>][] } {
  const calls: [string, Record<string, unknown>][] = [];
  const answer = (name: string, args: Record<string, unknown>): unknown => {
    if (name === 'faucet_list_tables')
      return [
        { name: 'customers', type: 'table', columns: [] },
        { name: 'orders', type: 'table', columns: [] },
      ];
    if (name === 'faucet_describe_table') return SCHEMAS[String(args.table)];
    if (name === 'faucet_query')
      return { records: [{ total: 5, id: 1, customer_id: 7 }], count: 1, limit: args.limit, offset: 0 };
    return undefined;
  };
  return {
    calls,
    open: async () => ({ era: 'legacy', protocolVersion: 'test' }),
    abandon: () => {},
    reinitialized: 0,
    close: async () => {},
    listTools: async () => tools,
    callTool: async (name, args): Promise<ToolCallResult> => {
      calls.push([name, args]);
      return { isError: false, data: answer(name, args) };
    },
  };
}

const NOW = [
  {
    name: 'faucet_query',
    inputSchema: { type: 'object', properties: { service: {}, table: {}, fields: {}, group: {} } },
  },
  ...['faucet_list_tables', 'faucet_describe_table', 'faucet_insert', 'faucet_update', 'faucet_delete'].map((name) => ({
    name,
  })),
];

describe('the faucet profile over Faucet’s own shapes', () => {
  it('reads foreign keys from column_name/referenced_table/referenced_column, and the reverse ones from every table', async () => {
    const client = new PeerClient(faucet, fakeFaucet(NOW), { service: 'main' });
    const orders = (await client.callTool('describe_table', { table: 'orders' })).data;
    expect(orders).toMatchObject({
      name: 'orders',
      rows: null,
      primary_key: ['id'],
      foreign_keys: [{ columns: ['customer_id'], table: 'customers', references: ['id'] }],
      indexes: [{ columns: ['customer_id'], unique: false }],
    });
    expect((orders as { columns: unknown[] }).columns[2]).toEqual({
      name: 'total',
      type: 'decimal',
      precision: 12,
      scale: 2,
      nullable: true,
      default: '0',
      auto_increment: false,
    });
    const customers = (await client.callTool('describe_table', { table: 'customers' })).data;
    expect(customers).toMatchObject({
      foreign_keys: [],
      referenced_by: [{ table: 'orders', columns: ['customer_id'], references: ['id'] }],
      indexes: [],
    });
  });

  it('sends a hostile key as one quoted literal and answers the row in table order', async () => {
    const peer = fakeFaucet(NOW);
    const client = new PeerClient(faucet, peer, { service: 'main' });
    const r = await client.callTool('get', { table: 'orders', key: "1' OR '1'='1" });
    expect(peer.calls.at(-1)).toEqual([
      'faucet_query',
      { service: 'main', table: 'orders', filter: "id = '1'' OR ''1''=''1'", limit: 1 },
    ]);
    expect(Object.keys((r.data as { row: object }).row)).toEqual(['id', 'customer_id', 'total']);
    expect(await client.callTool('get', { table: 'orders', key: 'a\0' })).toMatchObject({
      isError: true,
      data: { error: { code: 'invalid_argument' } },
    });
    expect(peer.calls.filter(([name]) => name === 'faucet_query')).toHaveLength(1);
  });

  it('aggregates through fields and group', async () => {
    const peer = fakeFaucet(NOW);
    const client = new PeerClient(faucet, peer, {});
    await client.callTool('aggregate', {
      table: 'orders',
      aggregates: [
        { fn: 'count', as: 'n' },
        { fn: 'sum', column: 'total' },
      ],
      group_by: ['customer_id'],
      order_by: ['n desc'],
      limit: 10,
    });
    expect(peer.calls.at(-1)).toEqual([
      'faucet_query',
      {
        service: 'main',
        table: 'orders',
        fields: ['customer_id', 'COUNT(*) AS n', 'SUM(total) AS sum_total'],
        group: 'customer_id',
        order: 'n DESC',
        limit: 11,
      },
    ]);
    const bad = await client.callTool('aggregate', { table: 'orders', aggregates: [{ fn: 'sum', column: 'nope' }] });
    expect(bad).toMatchObject({ isError: true, data: { error: { code: 'unknown_column' } } });
  });

  it('discovers again in each new session, as a new agent would', async () => {
    const peer = fakeFaucet(NOW);
    const client = new PeerClient(faucet, peer, {});
    for (let session = 0; session < 2; session++) {
      await client.open();
      await client.callTool('describe_table', { table: 'orders' });
      await client.callTool('describe_table', { table: 'customers' });
    }
    expect(peer.calls.map(([name]) => name)).toEqual([
      'faucet_list_tables',
      'faucet_describe_table',
      'faucet_describe_table',
      'faucet_list_tables',
      'faucet_describe_table',
      'faucet_describe_table',
    ]);
  });

  it('serves aggregate only where faucet_query lists group, and writes only where Faucet lists its write tools', async () => {
    const listed = async (tools: ToolInfo[]) =>
      (await new PeerClient(faucet, fakeFaucet(tools)).listTools()).map((t) => t.name);
    expect(await listed(NOW)).toEqual([
      'list_tables',
      'describe_table',
      'get',
      'query',
      'aggregate',
      'insert',
      'update',
      'delete',
    ]);
    const before = [
      { name: 'faucet_query', inputSchema: { type: 'object', properties: { fields: {}, order: {} } } },
      { name: 'faucet_list_tables' },
    ];
    expect(await listed(before)).toEqual(['list_tables', 'describe_table', 'get', 'query']);
    const client = new PeerClient(faucet, fakeFaucet(before));
    await client.listTools();
    expect(await client.callTool('aggregate', { table: 'orders', aggregates: [{ fn: 'count' }] })).toMatchObject({
      isError: true,
      data: {
        error: { code: 'unsupported', message: expect.stringMatching(/^faucet: no aggregate tool: .*takes no group/) },
      },
    });
  });
});
