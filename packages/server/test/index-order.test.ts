import { parseFilter } from '@mcp-db-bench/contract';
import type { RawCatalog, RawColumn } from '@mcp-db-bench/engines';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../src/catalog/build.js';
import type { Table } from '../src/catalog/types.js';
import { indexOrder } from '../src/query/index-order.js';

/**
 * The order `query` gives without `order_by` (query/index-order.ts): the columns of the index
 * that serves the filter after those it binds by equality. Decided from the schema alone, so
 * these tests need no database; the plans each engine makes of it are checked on the real
 * engines in index-order-plans.test.ts.
 */
const column = (table: string, name: string, type: RawColumn['type'], nullable = false): RawColumn => ({
  table,
  name,
  ordinal: 0,
  nativeType: type,
  type,
  precision: null,
  scale: null,
  nullable,
  default: null,
  autoIncrement: false,
});

function catalog(): Map<string, Table> {
  const raw: RawCatalog = {
    tables: [
      { name: 't', kind: 'table', rowEstimate: null },
      { name: 'keyless', kind: 'table', rowEstimate: null },
      { name: 'v', kind: 'view', rowEstimate: null },
    ],
    columns: [
      column('t', 'id', 'integer'),
      column('t', 'a', 'integer'),
      column('t', 'b', 'integer'),
      column('t', 'c', 'integer', true),
      column('t', 'd', 'text'),
      column('t', 'e', 'integer'),
      column('t', 'j', 'json'),
      column('keyless', 'x', 'integer'),
      column('keyless', 'y', 'integer'),
      column('v', 'a', 'integer'),
    ],
    primaryKeys: [{ table: 't', columns: ['id'] }],
    foreignKeys: [],
    indexes: [
      { table: 't', name: 'ix_a', columns: ['a'], unique: false, ordered: true },
      { table: 't', name: 'ix_a_b', columns: ['a', 'b'], unique: false, ordered: true },
      { table: 't', name: 'ix_c', columns: ['c'], unique: false, ordered: true },
      { table: 't', name: 'ix_d_c', columns: ['d', 'c'], unique: false, ordered: true },
      { table: 't', name: 'ix_d_e', columns: ['d', 'e'], unique: false, ordered: true },
      { table: 't', name: 'ix_e_hash', columns: ['e'], unique: false, ordered: false },
      { table: 't', name: 'ix_b_j', columns: ['b', 'j'], unique: false, ordered: true },
      { table: 'keyless', name: 'ix_x', columns: ['x'], unique: false, ordered: true },
    ],
  };
  return new Map(buildCatalog(raw, new Map()).tables.map((t) => [t.name, t]));
}

const tables = catalog();
/** the order's leading columns for a filter in the expression language */
const order = (table: string, filter?: string) =>
  indexOrder(tables.get(table)!, filter === undefined ? undefined : parseFilter(filter)).map((k) => k.name);

describe('the order without order_by', () => {
  it.each<[string, string | undefined, string[]]>([
    ['no filter: the key alone', undefined, []],
    ['an index wholly bound by equality: the key alone, as before', 'a = 1', []],
    ['equality, then a range the index takes next: the range column', 'a = 1 and b > 2', ['b']],
    ['equality and a condition no index takes: the columns after the equality', 'd = 1 and id > 0', ['e']],
    ['a range on an index: its columns', 'a between 1 and 5', ['a']],
    ['the most columns bound by equality win', 'd = 1 and e = 2 and a > 0', []],
    ['a nullable column the filter keeps from null', 'c > 3', ['c']],
    ['a nullable column after the equality, not kept from null: another index', "d = 'x'", ['e']],
    ['names as the caller writes them', 'A = 1 AND B >= 2', ['b']],
    ['an index that is not ordered serves nothing', 'e > 1', []],
    ['a column that cannot be sorted portably is passed over', 'b = 1', []],
    ['or binds nothing', 'a = 1 or a = 2', []],
    ['in binds nothing', 'a in (1, 2)', []],
    ['not binds nothing', 'not (a = 1)', []],
    ['an equality on the key: the key alone', 'id = 3 and a > 1', []],
    ['an unknown column is left to the filter to report', 'zz = 1 and a > 1', ['a']],
  ])('%s: %s', (_, filter, expected) => {
    expect(order('t', filter)).toEqual(expected);
  });

  it('is the same whichever order the indexes are listed in', () => {
    const t = tables.get('t')!;
    const reversed = { ...t, indexes: [...t.indexes].reverse() };
    for (const filter of ['a = 1 and b > 2', "d = 'x'", 'c > 3', 'a between 1 and 5'])
      expect(indexOrder(reversed, parseFilter(filter))).toEqual(indexOrder(t, parseFilter(filter)));
  });

  it('gives keys without nulls, ascending', () => {
    expect(indexOrder(tables.get('t')!, parseFilter('c > 3'))).toEqual([
      { name: 'c', direction: 'asc', nullable: false },
    ]);
  });

  it('serves a table without a key, and never a view', () => {
    expect(order('keyless', 'x > 1')).toEqual(['x']);
    expect(order('v', 'a > 1')).toEqual([]);
  });
});
