import type { AggregateInput, GetInput, QueryInput } from '@mcp-db-bench/contract';
import { ENGINES } from '@mcp-db-bench/engines';
import { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../src/catalog/build.js';
import type { Catalog, RawCatalog } from '../src/catalog/types.js';
import { DEFAULT_LIMITS } from '../src/context.js';
import { planAggregate } from '../src/tools/aggregate.js';
import { planGet } from '../src/tools/get.js';
import { planQuery } from '../src/tools/query.js';
import { shopCatalog } from './support/shop.js';

/**
 * The SQL each tool compiles to, per engine, without a server. This is how SQL Server is
 * covered on machines that cannot run it (its live tests run where MSSQL_URL is set), and
 * it pins down that caller text only ever arrives as parameters.
 */
const catalog = shopCatalog();
const limits = DEFAULT_LIMITS;
const engine = (name: string) => (ENGINES.find((e) => e.name === name) ?? ENGINES.find((e) => e.family === name))!;
const compileWith = (name: string) => {
  const e = engine(name);
  const db = new Kysely({ dialect: e.compileOnlyDialect() });
  return { e, db };
};

/** Each SQL family, compiled by its engine of the same name (engines of one family compile alike). */
const FAMILIES: string[] = [...new Set(ENGINES.map((e) => e.family))];

describe('mssql', () => {
  const { e, db } = compileWith('mssql');

  it('query: top n+1, bracketed names, @-parameters, nulls-first case terms, primary key tie-break', () => {
    const plan = planQuery(
      {
        table: 'orders',
        columns: ['id', 'note'],
        filter: "customer_id = 3 and note like '50\\%%'",
        order_by: ['note desc'],
        limit: 10,
      },
      catalog,
      e,
      db,
      limits,
    );
    const { sql, parameters } = plan.compiled;
    expect(sql).toBe(
      'select top(11) "id" as "id", "note" as "note" from "orders" as "t" ' +
        `where ("customer_id" = @1 and "note" like @2 escape '!') ` +
        'order by case when "note" is null then 0 else 1 end desc, "note" desc, "id" asc',
    );
    expect(parameters).toEqual([3, '50!%%']);
  });

  it('query: a cursor becomes a keyset predicate behind a bound of the first key, not an offset', () => {
    const first = planQuery(
      { table: 'orders', columns: ['id'], order_by: ['placed_at desc'], limit: 2 },
      catalog,
      e,
      db,
      limits,
    );
    const page = first.finish([
      { id: 9, placed_at: '2023-01-14 12:00:00.009' },
      { id: 8, placed_at: '2023-01-13 00:00:00.008' },
      { id: 7, placed_at: '2023-01-11 12:00:00.007' },
    ]);
    expect(page.truncated).toBe(true);
    const next = planQuery(
      { table: 'orders', columns: ['id'], order_by: ['placed_at desc'], limit: 2, cursor: page.next_cursor! },
      catalog,
      e,
      db,
      limits,
    );
    const { sql, parameters } = next.compiled;
    expect(sql).toContain('where ("placed_at" <= @1 and ("placed_at" < @2 or ("placed_at" = @3 and "id" > @4)))');
    expect(parameters).toEqual(
      ['2023-01-13T00:00:00.008Z', '2023-01-13T00:00:00.008Z', '2023-01-13T00:00:00.008Z', 8].map((p) =>
        typeof p === 'string' ? e.encodeParam('timestamp', p) : p,
      ),
    );
  });

  it('get: a composite key', () => {
    const { sql, parameters } = planGet(
      { table: 'order_items', key: { order_id: 7, line_no: 2 } },
      catalog,
      e,
      db,
    ).compiled;
    expect(sql).toBe(
      'select "order_id" as "order_id", "line_no" as "line_no", "sku" as "sku", "qty" as "qty", "price" as "price" from "order_items" as "t" where ("order_id" = @1 and "line_no" = @2)',
    );
    expect(parameters).toEqual([7, 2]);
  });

  it('aggregate: group, having on an output, order by an output, averages without integer division', () => {
    const plan = planAggregate(
      {
        table: 'orders',
        aggregates: [
          { fn: 'count', as: 'n' },
          { fn: 'avg', column: 'total' },
        ],
        group_by: ['customer_id'],
        having: 'n >= 5',
        order_by: ['n desc'],
        limit: 3,
      },
      catalog,
      e,
      db,
      limits,
    );
    const { sql, parameters } = plan.compiled;
    expect(sql).toBe(
      'select top(4) "customer_id" as "customer_id", count(*) as "n", avg("total" * 1.0e0) as "avg_total" from "orders" as "t" ' +
        'group by "customer_id" having count(*) >= @1 order by count(*) desc, "customer_id" asc',
    );
    expect(parameters).toEqual([5]);
  });
});

describe.each(FAMILIES.filter((name) => engine(name).limitIn === 'parameter'))('%s', (name) => {
  const { e, db } = compileWith(name);

  it('query compiles with limit n+1 and parameters only', () => {
    const { sql, parameters } = planQuery(
      { table: 'orders', columns: ['id'], filter: "status in ('paid', 'x''; drop table orders --')" },
      catalog,
      e,
      db,
      limits,
    ).compiled;
    expect(sql).toMatch(/ limit (\$\d+|\?)$/);
    expect(sql).not.toContain('drop');
    expect(parameters).toContain("x'; drop table orders --");
    expect(parameters.at(-1)).toBe(101);
  });
});

describe('sqlite', () => {
  const { e, db } = compileWith('sqlite');

  it('writes the limit as a literal (SQLite plans a bound LIMIT anew at every run), values still bound', () => {
    const { sql, parameters } = planQuery(
      { table: 'orders', columns: ['id'], filter: 'customer_id = 3', limit: 10 },
      catalog,
      e,
      db,
      limits,
    ).compiled;
    expect(sql).toMatch(/ limit 11$/);
    expect(parameters).toEqual([3]);
  });
});

describe.each(FAMILIES)('%s: get compiles each shape once', (name) => {
  const { e, db } = compileWith(name);
  const calls: GetInput[] = [
    { table: 'orders', key: 7 },
    { table: 'orders', key: '9007199254740993' },
    { table: 'orders', key: { id: -3 }, columns: ['note', 'id'] },
    { table: 'order_items', key: { order_id: 7, line_no: 2 } },
    { table: 'order_items', key: { line_no: '12', order_id: 9 }, columns: ['sku'] },
  ];

  it.each(calls)('binds a later call exactly as a fresh compile would: %o', (args) => {
    const cached = shopCatalog();
    planGet(args, cached, e, db); // the shape's first call compiles it; the next one reuses it
    const later = planGet(args, cached, e, db).compiled;
    const fresh = planGet(args, shopCatalog(), e, db).compiled;
    expect(later.sql).toBe(fresh.sql);
    expect(later.parameters).toEqual(fresh.parameters);
    expect(later.query.kind, 'bound to the cached text, not compiled again').toBe('RawNode');
  });

  it('keeps the SQL of each engine apart when engines share a catalog', () => {
    const shared = shopCatalog();
    const other = compileWith(FAMILIES.find((f) => f !== name)!);
    const theirs = planGet({ table: 'orders', key: 1 }, shared, other.e, other.db).compiled;
    const ours = planGet({ table: 'orders', key: 1 }, shared, e, db).compiled;
    expect(ours.sql).toBe(planGet({ table: 'orders', key: 1 }, shopCatalog(), e, db).compiled.sql);
    expect(ours.sql).not.toBe(theirs.sql);
  });

  it('keeps one SQL text per shape while the keys change', () => {
    const cached = shopCatalog();
    const first = planGet({ table: 'orders', key: 1 }, cached, e, db).compiled;
    const second = planGet({ table: 'orders', key: 2 }, cached, e, db).compiled;
    expect(second.sql).toBe(first.sql);
    expect(second.parameters).toEqual([2]);
  });
});

describe.each(FAMILIES)('%s: query compiles each shape once', (name) => {
  const { e, db } = compileWith(name);
  // Pairs of one shape: the first call compiles it, the second binds its own values to that text.
  const shapes: [QueryInput, QueryInput][] = [
    [
      { table: 'orders', filter: 'customer_id = 3', limit: 20 },
      { table: 'orders', filter: 'customer_id = 17', limit: 20 },
    ],
    [
      {
        table: 'orders',
        columns: ['id', 'note'],
        filter: "status in ('paid', 'x') and total between 1 and 2.5 and not (note like 'a%')",
      },
      {
        table: 'orders',
        columns: ['id', 'note'],
        filter: "status in ('shipped', 'y') and total between 7 and 80.25 and not (note like '50\\%!%')",
      },
    ],
    [
      {
        table: 'orders',
        filter: {
          or: [
            { column: 'big', op: '>', value: '9007199254740993' },
            { column: 'note', op: 'is null' },
          ],
        },
        order_by: ['placed_at desc'],
      },
      {
        table: 'orders',
        filter: {
          or: [
            { column: 'big', op: '>', value: -4 },
            { column: 'note', op: 'is null' },
          ],
        },
        order_by: ['placed_at desc'],
      },
    ],
    [
      { table: 'customers', filter: "vip = true and created_at >= '2020-03-01T00:00:00.125Z' and balance != '-12.50'" },
      { table: 'customers', filter: "vip = false and created_at >= '2021-07-04T10:00:00Z' and balance != '99.99'" },
    ],
    [
      { table: 'ORDER_ITEMS', filter: 'Order_Id = 4 and line_no > 1', columns: ['sku'] },
      { table: 'ORDER_ITEMS', filter: 'Order_Id = 8 and line_no > 3', columns: ['sku'] },
    ],
  ];

  it.each(shapes)('binds a later call exactly as a fresh compile would: %o', (first, later) => {
    const cached = shopCatalog();
    planQuery(first, cached, e, db, limits);
    const reused = planQuery(later, cached, e, db, limits).compiled;
    const fresh = planQuery(later, shopCatalog(), e, db, limits).compiled;
    expect(reused.sql).toBe(fresh.sql);
    expect(reused.parameters).toEqual(fresh.parameters);
    expect(reused.query.kind, 'bound to the cached text, not compiled again').toBe('RawNode');
  });

  it('binds a cursor page of a cached shape as a fresh compile would', () => {
    const cached = shopCatalog();
    const args: QueryInput = {
      table: 'orders',
      columns: ['id'],
      filter: 'customer_id = 3',
      order_by: ['placed_at desc'],
      limit: 2,
    };
    const page = (a: QueryInput) =>
      planQuery(a, cached, e, db, limits).finish([
        { id: 9, placed_at: '2023-01-14 12:00:00.009' },
        { id: 8, placed_at: '2023-01-13 00:00:00.008' },
        { id: 7, placed_at: '2023-01-11 12:00:00.007' },
      ]);
    const cursor = page(args).next_cursor!;
    planQuery({ ...args, cursor }, cached, e, db, limits);
    const other = planQuery({ ...args, filter: 'customer_id = 5' }, cached, e, db, limits).finish([
      { id: 30, placed_at: '2024-02-01 00:00:00.000' },
      { id: 31, placed_at: '2024-01-01 00:00:00.000' },
      { id: 32, placed_at: '2023-01-01 00:00:00.000' },
    ]);
    const next = { ...args, filter: 'customer_id = 5', cursor: other.next_cursor! };
    const reused = planQuery(next, cached, e, db, limits).compiled;
    const fresh = planQuery(next, shopCatalog(), e, db, limits).compiled;
    expect(reused.sql).toBe(fresh.sql);
    expect(reused.parameters).toEqual(fresh.parameters);
  });

  it('keeps a page no row can follow apart from the first page of the same shape', () => {
    // A key-less view ordered by its only column, descending: after a null (nulls last), no row follows.
    const notes = (): Catalog => {
      const raw: RawCatalog = { tables: [], columns: [], primaryKeys: [], foreignKeys: [], indexes: [] };
      raw.tables.push({ name: 'notes', kind: 'view', rowEstimate: null });
      raw.columns.push({
        table: 'notes',
        name: 'note',
        ordinal: 1,
        nativeType: 'text',
        type: 'text',
        precision: null,
        scale: null,
        nullable: true,
        default: null,
        autoIncrement: false,
      });
      return buildCatalog(raw, new Map());
    };
    const cached = notes();
    const args: QueryInput = { table: 'notes', order_by: ['note desc'], limit: 1 };
    const first = planQuery(args, cached, e, db, limits);
    const cursor = first.finish([{ note: null }, { note: null }]).next_cursor!;
    const reused = planQuery({ ...args, cursor }, cached, e, db, limits).compiled;
    const fresh = planQuery({ ...args, cursor }, notes(), e, db, limits).compiled;
    expect(fresh.sql).not.toBe(first.compiled.sql);
    expect(reused.sql).toBe(fresh.sql);
    // and the other way round: the first page after the empty one is still the first page
    expect(planQuery(args, cached, e, db, limits).compiled.sql).toBe(first.compiled.sql);
  });

  it('plans a filter template once, and binds each later call as a fresh plan would', () => {
    const cached = shopCatalog();
    const point = (id: number | string): QueryInput => ({ table: 'orders', filter: `id = ${id}`, limit: 1 });
    planQuery(point(1), cached, e, db, limits);
    const later = [2, -3, '9007199254740993'].map((id) => planQuery(point(id), cached, e, db, limits));
    // one template's comparisons, worked out once
    expect(later[0]!.comparisons()).toBe(later[2]!.comparisons());
    for (const [i, id] of [2, -3, '9007199254740993'].entries()) {
      const fresh = planQuery(point(id), shopCatalog(), e, db, limits);
      expect(later[i]!.compiled.sql).toBe(fresh.compiled.sql);
      expect(later[i]!.compiled.parameters).toEqual(fresh.compiled.parameters);
      expect(later[i]!.comparisons()).toEqual(fresh.comparisons());
    }
  });

  it.each<[QueryInput, RegExp]>([
    [{ table: 'nope', filter: 'id = 1abc' }, /^unknown table 'nope'/],
    [{ table: 'orders', columns: ['nope'], filter: "note = 'open" }, /^columns\[0\]: unknown column 'nope'/],
    [{ table: 'orders', filter: 'id = 1abc' }, /^filter: malformed number '1abc'/],
  ])('reports the table and columns before the filter, as a full plan does: %o', (args, message) => {
    expect(() => planQuery(args, shopCatalog(), e, db, limits)).toThrow(message);
  });

  it("gives a template's truncated page the cursor a fresh plan gives", () => {
    const cached = shopCatalog();
    const args = (customer: number): QueryInput => ({
      table: 'orders',
      columns: ['id'],
      filter: `customer_id = ${customer}`,
      order_by: ['placed_at desc'],
      limit: 2,
    });
    const rows = [
      { id: 9, placed_at: '2023-01-14 12:00:00.009' },
      { id: 8, placed_at: '2023-01-13 00:00:00.008' },
      { id: 7, placed_at: '2023-01-11 12:00:00.007' },
    ];
    const first = planQuery(args(3), cached, e, db, limits).finish(rows);
    const reused = planQuery(args(5), cached, e, db, limits).finish(rows);
    expect(reused).toEqual(planQuery(args(5), shopCatalog(), e, db, limits).finish(rows));
    // the cursor is customer 5's: it would be refused by customer 3's query
    expect(reused.next_cursor).not.toBe(first.next_cursor);
  });

  it.each([
    ['orders', 'id = 5', 'id = 5.5'],
    ['orders', "placed_at >= '2024-01-01T00:00:00Z'", "placed_at >= 'soon'"],
    ['orders', 'customer_id between 1 and 2', 'customer_id between 1 and 99999999999999999999'],
    ['customers', "vip = true and balance > '1'", "vip = false and balance > 'lots'"],
  ])(
    "gives a bad value in a template's later call the error a fresh plan gives: %s %s, then %s",
    (table, good, bad) => {
      const cached = shopCatalog();
      planQuery({ table, filter: good }, cached, e, db, limits);
      const fresh = (() => {
        try {
          planQuery({ table, filter: bad }, shopCatalog(), e, db, limits);
        } catch (error) {
          return error as Error;
        }
      })();
      expect(fresh?.message).toMatch(/^filter(\.and\[1\])?\.value(\[1\])?: /);
      expect(() => planQuery({ table, filter: bad }, cached, e, db, limits)).toThrow(fresh!.message);
    },
  );

  it('gives a bad value in a cached shape the error a fresh compile gives', () => {
    const cached = shopCatalog();
    planQuery({ table: 'orders', filter: 'customer_id = 3 and total > 5' }, cached, e, db, limits);
    const bad: QueryInput = { table: 'orders', filter: "customer_id = 3 and total > 'lots'" };
    const fresh = (() => {
      try {
        planQuery(bad, shopCatalog(), e, db, limits);
      } catch (error) {
        return error as Error;
      }
    })();
    expect(fresh?.message).toMatch(/^filter.and\[1\].value: /);
    expect(() => planQuery(bad, cached, e, db, limits)).toThrow(fresh!.message);
  });

  it('keeps a different limit apart (SQL Server writes it into the text)', () => {
    const cached = shopCatalog();
    planQuery({ table: 'orders', filter: 'customer_id = 3', limit: 5 }, cached, e, db, limits);
    const reused = planQuery({ table: 'orders', filter: 'customer_id = 3', limit: 6 }, cached, e, db, limits).compiled;
    const fresh = planQuery(
      { table: 'orders', filter: 'customer_id = 3', limit: 6 },
      shopCatalog(),
      e,
      db,
      limits,
    ).compiled;
    expect(reused.sql).toBe(fresh.sql);
    expect(reused.parameters).toEqual(fresh.parameters);
  });
});

describe.each(FAMILIES)('%s: aggregate compiles each shape once', (name) => {
  const { e, db } = compileWith(name);
  // Pairs of one shape: the first call compiles it, the second binds its own values to that text.
  const shapes: [AggregateInput, AggregateInput][] = [
    [
      { table: 'orders', aggregates: [{ fn: 'count' }], filter: 'customer_id = 3' },
      { table: 'orders', aggregates: [{ fn: 'count' }], filter: 'customer_id = 17' },
    ],
    [
      {
        table: 'orders',
        aggregates: [
          { fn: 'count', as: 'n' },
          { fn: 'sum', column: 'total' },
        ],
        group_by: ['status'],
        filter: "status in ('paid', 'x') and total > 2.5",
        having: 'n >= 2 and sum_total < 100.25',
        order_by: ['n desc'],
        limit: 5,
      },
      {
        table: 'orders',
        aggregates: [
          { fn: 'count', as: 'n' },
          { fn: 'sum', column: 'total' },
        ],
        group_by: ['status'],
        filter: "status in ('shipped', 'y') and total > 7",
        having: 'n >= 9 and sum_total < 3.5',
        order_by: ['n desc'],
        limit: 5,
      },
    ],
    [
      {
        table: 'customers',
        aggregates: [
          { fn: 'min', column: 'vip' },
          { fn: 'max', column: 'vip' },
        ],
        filter: "balance != '-12.50'",
      },
      {
        table: 'customers',
        aggregates: [
          { fn: 'min', column: 'vip' },
          { fn: 'max', column: 'vip' },
        ],
        filter: "balance != '99.99'",
      },
    ],
  ];

  it.each(shapes)('binds a later call exactly as a fresh compile would: %o', (first, later) => {
    const cached = shopCatalog();
    planAggregate(first, cached, e, db, limits);
    const reused = planAggregate(later, cached, e, db, limits).compiled;
    const fresh = planAggregate(later, shopCatalog(), e, db, limits).compiled;
    expect(reused.sql).toBe(fresh.sql);
    expect(reused.parameters).toEqual(fresh.parameters);
    expect(reused.query.kind, 'bound to the cached text, not compiled again').toBe('RawNode');
  });

  it('gives a bad having value in a cached shape the error a fresh compile gives', () => {
    const cached = shopCatalog();
    const args = (having: string): AggregateInput => ({
      table: 'orders',
      aggregates: [{ fn: 'count', as: 'n' }],
      group_by: ['status'],
      having,
    });
    planAggregate(args('n > 1'), cached, e, db, limits);
    const fresh = (() => {
      try {
        planAggregate(args("n > 'many'"), shopCatalog(), e, db, limits);
      } catch (error) {
        return error as Error;
      }
    })();
    expect(fresh?.message).toMatch(/^having.value: /);
    expect(() => planAggregate(args("n > 'many'"), cached, e, db, limits)).toThrow(fresh!.message);
  });
});
