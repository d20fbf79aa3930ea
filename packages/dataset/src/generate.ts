import { RowRandom } from './random.js';
import { type DatasetTable, ITEMS_PER_ORDER, TABLES } from './schema.js';
import * as W from './words.js';

/**
 * A generated value: integers as numbers, decimals as strings with their scale, timestamps as
 * `YYYY-MM-DD HH:MM:SS` in UTC (a literal every engine reads), booleans, text, null.
 */
export type Value = string | number | boolean | null;
export type Row = Value[];

export interface GenerateOptions {
  seed: number;
  counts: Readonly<Record<string, number>>;
}

type RowMaker = (id: number, r: RowRandom, g: Dataset) => Row;

const DAY = 86_400;
const T2015 = Date.UTC(2015, 0, 1) / 1000;
const T2018 = Date.UTC(2018, 0, 1) / 1000;
const T2021 = Date.UTC(2021, 0, 1) / 1000;
const T2024 = Date.UTC(2024, 0, 1) / 1000;
const T2026 = Date.UTC(2026, 0, 1) / 1000;

function timestamp(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

const cents = (c: number) => {
  const s = String(c).padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
};

const ORDER_STATUSES = [
  'delivered',
  'delivered',
  'delivered',
  'delivered',
  'shipped',
  'shipped',
  'paid',
  'pending',
  'cancelled',
  'refunded',
];
const TIERS = [
  'standard',
  'standard',
  'standard',
  'standard',
  'standard',
  'standard',
  'standard',
  'silver',
  'silver',
  'gold',
];
const CURRENCIES = ['USD', 'USD', 'USD', 'USD', 'USD', 'USD', 'USD', 'EUR', 'EUR', 'GBP'];
const ACCOUNT_STATUSES = [
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'frozen',
];
const CARD_STATUSES = [
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'blocked',
  'expired',
];
const RATINGS = [5, 5, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 3, 3, 2, 2, 1, 1];

/** Values that several tables must agree on (a product's price, an order's items) come from here. */
export class Dataset {
  readonly #shared = new RowRandom();

  constructor(readonly options: GenerateOptions) {}

  count(table: string): number {
    return this.options.counts[table]!;
  }

  /** Price in cents of a product: log-uniform from $1 to $2,000. */
  priceCents(productId: number): number {
    const r = this.#shared.at(this.options.seed, 101, productId);
    return Math.round(100 * Math.exp(r.next() * Math.log(2000)));
  }

  /** The product and quantity of one line of an order; line totals add up to the order's total. */
  item(orderId: number, line: number): { productId: number; quantity: number; unitCents: number } {
    const r = this.#shared.at(this.options.seed, 102, orderId * ITEMS_PER_ORDER + line);
    const productId = r.skewed(this.count('products'), 2);
    const quantity = r.chance(0.7) ? 1 : r.int(2, 5);
    return { productId, quantity, unitCents: this.priceCents(productId) };
  }

  orderTotalCents(orderId: number): number {
    let total = 0;
    for (let line = 0; line < ITEMS_PER_ORDER; line++) {
      const it = this.item(orderId, line);
      total += it.quantity * it.unitCents;
    }
    return total;
  }
}

const MAKERS: Record<string, RowMaker> = {
  categories(id, r, g) {
    // A two-level tree: the first tenth are roots, the rest hang under one of them.
    const roots = Math.max(1, Math.floor(g.count('categories') / 10));
    const parent = id <= roots ? null : r.int(1, roots);
    const name = `${r.pick(W.CATEGORY_WORDS)} ${r.pick(W.NOUNS)}s ${id}`;
    return [id, parent, name, name.toLowerCase().replaceAll(' ', '-')];
  },
  suppliers(id, r) {
    const name = `${r.pick(W.LAST_NAMES)} ${r.pick(W.SUPPLIER_SUFFIXES)}`;
    return [
      id,
      name,
      r.pick(W.COUNTRIES),
      `sales${id}@supplier${id}.example`,
      cents(r.int(100, 500)),
      r.chance(0.9),
      timestamp(r.int(T2015, T2024)),
    ];
  },
  customers(id, r) {
    const first = r.pick(W.FIRST_NAMES);
    const last = r.pick(W.LAST_NAMES);
    const email = `${ascii(first)}.${ascii(last)}${id}@example.com`;
    const tier = r.chance(0.02) ? 'platinum' : r.pick(TIERS);
    return [
      id,
      first,
      last,
      email,
      r.pick(W.COUNTRIES),
      r.pick(W.CITIES),
      tier,
      r.chance(0.95),
      timestamp(r.int(T2018, T2024)),
    ];
  },
  products(id, r, g) {
    const name = `${r.pick(W.ADJECTIVES)} ${r.pick(W.MATERIALS)} ${r.pick(W.NOUNS)}`;
    return [
      id,
      r.skewed(g.count('categories'), 1.5),
      r.int(1, g.count('suppliers')),
      `SKU-${String(id).padStart(8, '0')}`,
      name,
      cents(g.priceCents(id)),
      r.chance(0.92),
      timestamp(r.int(T2018, T2024)),
    ];
  },
  inventory(id, r, g) {
    const products = g.count('products');
    const quantity = r.chance(0.05) ? 0 : r.int(1, 1000);
    return [
      id,
      ((id - 1) % products) + 1,
      r.pick(W.WAREHOUSES),
      quantity,
      r.int(10, 100),
      timestamp(r.int(T2024, T2026 - DAY)),
    ];
  },
  orders(id, r, g) {
    // A few customers order a lot: with power 3 the first tenth of customers place ~46% of orders.
    const customer = r.skewed(g.count('customers'), 3);
    const status = r.pick(ORDER_STATUSES);
    const placed = r.int(T2021, T2026 - 8 * DAY);
    const shipped = status === 'shipped' || status === 'delivered' ? timestamp(placed + r.int(DAY / 4, 7 * DAY)) : null;
    return [id, customer, status, cents(g.orderTotalCents(id)), r.pick(CURRENCIES), timestamp(placed), shipped];
  },
  order_items(id, _r, g) {
    const orderId = Math.ceil(id / ITEMS_PER_ORDER);
    const it = g.item(orderId, (id - 1) % ITEMS_PER_ORDER);
    return [id, orderId, it.productId, it.quantity, cents(it.unitCents), cents(it.quantity * it.unitCents)];
  },
  reviews(id, r, g) {
    const words = r.int(0, 40);
    let body: string | null = null;
    if (words > 8) {
      const parts: string[] = [];
      for (let i = 0; i < words; i++) parts.push(r.pick(W.REVIEW_WORDS));
      body = parts.join(' ');
    }
    return [
      id,
      r.skewed(g.count('products'), 2),
      r.skewed(g.count('customers'), 2),
      r.pick(RATINGS),
      r.pick(W.REVIEW_TITLES),
      body,
      r.chance(0.6) ? 0 : Math.floor(-Math.log(1 - r.next()) * 5),
      timestamp(r.int(T2021, T2026 - DAY)),
    ];
  },
  // Customer n holds account n (there are never more accounts than customers), so a payer's
  // card and account are found from the customer, as an agent would look them up.
  accounts(id, r) {
    return [id, id, cents(r.int(0, 500_000)), r.pick(CURRENCIES), r.pick(ACCOUNT_STATUSES)];
  },
  cards(id, r, g) {
    const account = ((id - 1) % g.count('accounts')) + 1;
    return [id, account, account, String(r.int(0, 9999)).padStart(4, '0'), r.pick(CARD_STATUSES)];
  },
  // The ledger starts empty: transfers and the write workload fill it.
  payments() {
    throw new Error('payments starts empty: it has no generated rows');
  },
};

function ascii(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

/**
 * Generates rows `from`..`to` (1-based ids, inclusive) of one table into `emit`, one row at a
 * time, so memory stays flat whatever the scale.
 */
export function generateRows(
  table: DatasetTable,
  g: Dataset,
  from: number,
  to: number,
  emit: (row: Row) => void,
): void {
  const make = MAKERS[table.name];
  if (!make) throw new Error(`no generator for ${table.name}`);
  const salt = TABLES.indexOf(table) + 1;
  const r = new RowRandom();
  for (let id = from; id <= to; id++) emit(make(id, r.at(g.options.seed, salt, id), g));
}

/** Rows of one table in batches of `size`, lazily. */
export function* batches(table: DatasetTable, g: Dataset, size: number): Generator<Row[], void, undefined> {
  const total = g.count(table.name);
  for (let from = 1; from <= total; from += size) {
    const batch: Row[] = [];
    generateRows(table, g, from, Math.min(total, from + size - 1), (row) => batch.push(row));
    yield batch;
  }
}
