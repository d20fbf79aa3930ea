import { describe, expect, it } from 'vitest';
import type { Catalog, Column, Table } from '../src/catalog/types.js';
import { resultTypes } from '../src/query/result-types.js';

/** A table of `columns` (name → type and scale), as introspection makes it. */
function table(name: string, columns: Record<string, [Column['type'], number | null]>): Table {
  const list = Object.entries(columns).map(
    ([c, [type, scale]]) => ({ name: c, type, scale, nullable: false, default: null }) as unknown as Column,
  );
  return {
    name,
    kind: 'table',
    rows: 0,
    columns: list,
    column: new Map(list.map((c) => [c.name, c])),
    primaryKey: [],
    foreignKeys: [],
    referencedBy: [],
    indexes: [],
  };
}

const tables = [
  table('orders', {
    id: ['integer', null],
    total: ['decimal', 2],
    placed_at: ['timestamp', null],
    note: ['text', null],
  }),
  table('refunds', { id: ['integer', null], total: ['decimal', 4] }),
  table('customers', { id: ['integer', null], name: ['text', null] }),
];
const catalog: Catalog = { tables, table: new Map(tables.map((t) => [t.name, t])), loadedAt: 0 };

describe("resultTypes: a custom tool's result columns the catalog knows", () => {
  it("a column of a table the statement names takes that column's type and scale", () => {
    const typeOf = resultTypes('select id, total, placed_at from orders where status = :s', catalog);
    expect(typeOf('total')).toEqual({ type: 'decimal', scale: 2 });
    expect(typeOf('placed_at')).toEqual({ type: 'timestamp', scale: null });
    expect(typeOf('spent')).toBeUndefined();
  });

  it('only tables the statement names, quoted or not, and not inside a string literal', () => {
    expect(resultTypes(`select name from "customers"`, catalog)('name')).toEqual({ type: 'text', scale: null });
    expect(resultTypes("select 'customers' as name from orders", catalog)('name')).toBeUndefined();
  });

  it('a name two named tables type differently is left to the driver', () => {
    const typeOf = resultTypes('select o.total from orders o join refunds r on r.id = o.id', catalog);
    expect(typeOf('total')).toBeUndefined();
    expect(typeOf('id')).toEqual({ type: 'integer', scale: null });
  });
});
