import type { PortableType } from '@mcp-db-bench/contract';
import { type Engine, engineForUrl } from '@mcp-db-bench/engines';
import { type ShopColumnType as ColumnType, testFactsOf } from '@mcp-db-bench/engines/testing';
import { sql } from 'kysely';
import { buildCatalog } from '../../src/catalog/build.js';
import type { Catalog, RawCatalog } from '../../src/catalog/types.js';

/**
 * A small shop: customers, orders, order_items (composite key) and a view, with the
 * values that trip engines up: nulls, unicode, decimals, timestamps with fractions,
 * integers past 2^53, booleans. Loaded identically into every engine, in the column types its
 * family's test facts give.
 */
const PORTABLE: Record<ColumnType, PortableType> = {
  int: 'integer',
  bigint: 'integer',
  text100: 'text',
  text20: 'text',
  bool: 'boolean',
  money: 'decimal',
  ts: 'timestamp',
};

interface TableSpec {
  name: string;
  columns: [string, ColumnType, 'null' | 'not null', string?][];
  primaryKey: string[];
  references?: { columns: string[]; table: string; to: string[] }[];
  indexes?: string[][];
}

export const SHOP: TableSpec[] = [
  {
    name: 'customers',
    columns: [
      ['id', 'int', 'not null'],
      ['name', 'text100', 'not null'],
      ['email', 'text100', 'null'],
      ['vip', 'bool', 'not null'],
      ['balance', 'money', 'not null'],
      ['created_at', 'ts', 'not null'],
    ],
    primaryKey: ['id'],
  },
  {
    name: 'orders',
    columns: [
      ['id', 'int', 'not null'],
      ['customer_id', 'int', 'not null'],
      ['status', 'text20', 'not null', "'pending'"],
      ['total', 'money', 'not null'],
      ['big', 'bigint', 'null'],
      ['placed_at', 'ts', 'not null'],
      ['note', 'text100', 'null'],
    ],
    primaryKey: ['id'],
    references: [{ columns: ['customer_id'], table: 'customers', to: ['id'] }],
    indexes: [['customer_id'], ['status', 'placed_at']],
  },
  {
    name: 'order_items',
    columns: [
      ['order_id', 'int', 'not null'],
      ['line_no', 'int', 'not null'],
      ['sku', 'text20', 'not null'],
      ['qty', 'int', 'not null'],
      ['price', 'money', 'not null'],
    ],
    primaryKey: ['order_id', 'line_no'],
    references: [{ columns: ['order_id'], table: 'orders', to: ['id'] }],
    indexes: [['order_id']],
  },
];

const NAMES = ['Ada', 'Zoë', '李雷', 'Émile', "O'Brien", 'Ngozi', 'Björk', '🎉 Party', 'Ana', 'Bob', 'Chen', 'Dara'];
const STATUSES = ['pending', 'paid', 'shipped', 'cancelled'];

/** Deterministic rows: the same on every engine, no randomness. */
export function shopRows(): Record<string, Record<string, string | number | boolean | null>[]> {
  const customers = Array.from({ length: 24 }, (_, i) => ({
    id: i + 1,
    name: `${NAMES[i % NAMES.length]} ${i + 1}`,
    email: i % 5 === 3 ? null : `c${i + 1}@example.com`,
    vip: i % 4 === 0,
    balance: `${(i * 137.25 - 400).toFixed(2)}`,
    created_at: new Date(Date.UTC(2020, i % 12, 1 + i, i % 24, 30, 15, (i * 125) % 1000)).toISOString(),
  }));
  const orders = Array.from({ length: 90 }, (_, i) => ({
    id: i + 1,
    // Skewed: the first customers order most.
    customer_id: (((i * i) % 97) % 24) + 1 <= 6 ? (i % 6) + 1 : ((i * 7) % 24) + 1,
    status: STATUSES[(i * 3) % 4]!,
    total: `${((i * 19.99) % 500).toFixed(2)}`,
    big: i % 10 === 0 ? `${9007199254740990n + BigInt(i)}` : i % 3 === 0 ? null : i * 1000,
    placed_at: new Date(Date.UTC(2023, 0, 1) + i * 36 * 3_600_000 + i * 7).toISOString(),
    note: i % 4 === 1 ? null : i % 4 === 2 ? '' : `note ${i} 100% _done_`,
  }));
  const items = orders.flatMap((o) =>
    Array.from({ length: (o.id % 3) + 1 }, (_, j) => ({
      order_id: o.id,
      line_no: j + 1,
      sku: `SKU-${(o.id * 7 + j) % 40}`,
      qty: ((o.id + j) % 5) + 1,
      price: `${(((o.id + j) * 3.5) % 90).toFixed(2)}`,
    })),
  );
  return { customers, orders, order_items: items };
}

/** Creates the shop in an empty database and loads its rows. */
export async function loadShop(url: string, engine: Engine<string> = engineForUrl(url)): Promise<void> {
  const { db, close } = await engine.connect(url, { poolSize: 1, create: true, inProcess: true });
  try {
    const types = testFactsOf(engine).shopTypes;
    for (const t of SHOP) {
      const ids = (names: string[]) => sql.join(names.map((c) => sql.id(c)));
      const cols = t.columns.map(
        ([name, type, nullability, dflt]) =>
          sql`${sql.id(name)} ${sql.raw(types[type])} ${sql.raw(nullability)}${sql.raw(dflt ? ` default ${dflt}` : '')}`,
      );
      const pk = sql`primary key (${ids(t.primaryKey)})`;
      const fks = (t.references ?? []).map(
        (r) => sql`foreign key (${ids(r.columns)}) references ${sql.id(r.table)} (${ids(r.to)})`,
      );
      await sql`create table ${sql.id(t.name)} (${sql.join([...cols, pk, ...fks])})`.execute(db);
      for (const ix of t.indexes ?? []) {
        await sql`create index ${sql.id(`ix_${t.name}_${ix.join('_')}`)} on ${sql.id(t.name)} (${sql.join(ix.map((c) => sql.id(c)))})`.execute(
          db,
        );
      }
    }
    await sql`create view paid_orders as select id, customer_id, total from orders where status = 'paid'`.execute(db);

    const rows = shopRows();
    for (const t of SHOP) {
      const typeOf = new Map(t.columns.map(([name, type]) => [name, PORTABLE[type]]));
      const encoded = rows[t.name]!.map((r) =>
        Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, v === null ? null : engine.encodeParam(typeOf.get(k)!, v)]),
        ),
      );
      for (let i = 0; i < encoded.length; i += 50)
        await db
          .insertInto(t.name)
          .values(encoded.slice(i, i + 50))
          .execute();
    }
  } finally {
    await close();
  }
}

/** The shop's catalog as introspection would report it, for compiling SQL without a server. */
export function shopCatalog(): Catalog {
  const raw: RawCatalog = { tables: [], columns: [], primaryKeys: [], foreignKeys: [], indexes: [] };
  for (const t of SHOP) {
    raw.tables.push({ name: t.name, kind: 'table', rowEstimate: null });
    t.columns.forEach(([name, type, nullability, dflt], i) => {
      raw.columns.push({
        table: t.name,
        name,
        ordinal: i + 1,
        nativeType: type,
        type: PORTABLE[type],
        precision: type === 'money' ? 12 : null,
        scale: type === 'money' ? 2 : null,
        nullable: nullability === 'null',
        default: dflt?.replaceAll("'", '') ?? null,
        autoIncrement: false,
      });
    });
    raw.primaryKeys.push({ table: t.name, columns: t.primaryKey });
    for (const r of t.references ?? [])
      raw.foreignKeys.push({ table: t.name, columns: r.columns, refTable: r.table, refColumns: r.to });
    for (const columns of t.indexes ?? [])
      raw.indexes.push({
        table: t.name,
        name: `ix_${t.name}_${columns.join('_')}`,
        columns,
        unique: false,
        ordered: true,
      });
  }
  return buildCatalog(raw, new Map());
}
