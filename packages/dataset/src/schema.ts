import type { PortableType } from '@mcp-db-bench/contract';

/**
 * The benchmark dataset: 8 normalised e-commerce tables, the same logical schema on every
 * engine, holding 2,560,000 rows at scale 1, split like the published study's dataset; and 3
 * small payment tables (accounts, cards, an empty payments ledger) for the write workloads.
 */
export interface DatasetColumn {
  name: string;
  type: PortableType;
  /** text: maximum length; decimal: precision */
  size?: number;
  /** decimal: digits after the point */
  scale?: number;
  nullable?: boolean;
  /** a foreign key to another table's `id` */
  references?: string;
  /** the database generates it on insert (identity / auto-increment); only on empty tables' `id` */
  generated?: boolean;
}

export interface DatasetTable {
  name: string;
  /** rows at scale 1; 0 = the table starts empty (a ledger that only writes fill) */
  baseRows: number;
  /** `id` first: every table has a single integer primary key called id */
  columns: DatasetColumn[];
}

const id: DatasetColumn = { name: 'id', type: 'integer' };
const text = (name: string, size: number, nullable = false): DatasetColumn => ({ name, type: 'text', size, nullable });
const money = (name: string, size = 12): DatasetColumn => ({ name, type: 'decimal', size, scale: 2 });
const fk = (name: string, table: string, nullable = false): DatasetColumn => ({
  name,
  type: 'integer',
  references: table,
  nullable,
});
const int = (name: string): DatasetColumn => ({ name, type: 'integer' });
const bool = (name: string): DatasetColumn => ({ name, type: 'boolean' });
const ts = (name: string, nullable = false): DatasetColumn => ({ name, type: 'timestamp', nullable });

/** In load order: every table comes after the tables it references. */
export const TABLES: readonly DatasetTable[] = [
  {
    name: 'categories',
    baseRows: 1_000,
    columns: [id, fk('parent_id', 'categories', true), text('name', 100), text('slug', 120)],
  },
  {
    name: 'suppliers',
    baseRows: 10_000,
    columns: [
      id,
      text('name', 120),
      text('country', 2),
      text('email', 200),
      { name: 'rating', type: 'decimal', size: 3, scale: 2 },
      bool('active'),
      ts('created_at'),
    ],
  },
  {
    name: 'customers',
    baseRows: 200_000,
    columns: [
      id,
      text('first_name', 60),
      text('last_name', 60),
      text('email', 200),
      text('country', 2),
      text('city', 80),
      text('tier', 20),
      bool('active'),
      ts('created_at'),
    ],
  },
  {
    name: 'products',
    baseRows: 100_000,
    columns: [
      id,
      fk('category_id', 'categories'),
      fk('supplier_id', 'suppliers'),
      text('sku', 40),
      text('name', 200),
      money('price', 10),
      bool('active'),
      ts('created_at'),
    ],
  },
  {
    name: 'inventory',
    baseRows: 100_000,
    columns: [
      id,
      fk('product_id', 'products'),
      text('warehouse', 20),
      int('quantity'),
      int('reorder_level'),
      ts('updated_at'),
    ],
  },
  {
    name: 'orders',
    baseRows: 600_000,
    columns: [
      id,
      fk('customer_id', 'customers'),
      text('status', 20),
      money('total'),
      text('currency', 3),
      ts('placed_at'),
      ts('shipped_at', true),
    ],
  },
  {
    name: 'order_items',
    baseRows: 1_200_000,
    columns: [
      id,
      fk('order_id', 'orders'),
      fk('product_id', 'products'),
      int('quantity'),
      money('unit_price', 10),
      money('line_total'),
    ],
  },
  {
    name: 'reviews',
    baseRows: 349_000,
    columns: [
      id,
      fk('product_id', 'products'),
      fk('customer_id', 'customers'),
      int('rating'),
      text('title', 200),
      text('body', 1000, true),
      int('helpful_votes'),
      ts('created_at'),
    ],
  },
  // The payment tables: what the write and transfer workloads change.
  {
    name: 'accounts',
    baseRows: 20_000,
    columns: [id, fk('customer_id', 'customers'), money('balance', 14), text('currency', 3), text('status', 20)],
  },
  {
    name: 'cards',
    baseRows: 30_000,
    columns: [id, fk('account_id', 'accounts'), fk('customer_id', 'customers'), text('last4', 4), text('status', 20)],
  },
  {
    name: 'payments',
    baseRows: 0,
    columns: [
      { ...id, generated: true },
      fk('from_account_id', 'accounts'),
      fk('to_account_id', 'accounts'),
      fk('card_id', 'cards', true),
      fk('approved_by', 'customers', true),
      money('amount'),
      text('status', 20),
      text('memo', 200),
      ts('created_at'),
    ],
  },
];

/** The tables of the published study's dataset; the payment tables come after them. */
export const STUDY_TABLES = [
  'categories',
  'suppliers',
  'customers',
  'products',
  'inventory',
  'orders',
  'order_items',
  'reviews',
] as const;

/** Every order has exactly this many items, so totals and items agree by construction. */
export const ITEMS_PER_ORDER = 2;

/** Largest scale accepted: 100 = 256 million rows. */
export const MAX_SCALE = 100;

/**
 * Rows per table at a scale. Every table but an empty-by-design one keeps at least one row
 * (foreign keys need a parent), order_items is exactly ITEMS_PER_ORDER per order, and there
 * are never more accounts than customers (each account has its own holder).
 */
export function rowCounts(scale: number): Record<string, number> {
  if (!Number.isFinite(scale) || scale <= 0 || scale > MAX_SCALE) {
    throw new RangeError(
      `scale must be a number above 0 and at most ${MAX_SCALE} (1 = 2.56 million rows); got ${scale}`,
    );
  }
  const counts: Record<string, number> = {};
  for (const t of TABLES) counts[t.name] = t.baseRows === 0 ? 0 : Math.max(1, Math.round(t.baseRows * scale));
  counts.order_items = counts.orders! * ITEMS_PER_ORDER;
  counts.accounts = Math.min(counts.accounts!, counts.customers!);
  return counts;
}

/** Secondary indexes by profile: `baseline` is primary keys only, like the study's first round. */
export interface IndexSpec {
  name: string;
  table: string;
  columns: string[];
}

export const INDEX_SETS: Record<'baseline' | 'optimized', readonly IndexSpec[]> = {
  baseline: [],
  // The foreign-key and filter columns the workloads choose at run time.
  optimized: [
    { name: 'ix_categories_parent_id', table: 'categories', columns: ['parent_id'] },
    { name: 'ix_products_category_id', table: 'products', columns: ['category_id'] },
    { name: 'ix_products_supplier_id', table: 'products', columns: ['supplier_id'] },
    { name: 'ix_inventory_product_id', table: 'inventory', columns: ['product_id'] },
    { name: 'ix_orders_customer_id', table: 'orders', columns: ['customer_id'] },
    { name: 'ix_orders_status_placed_at', table: 'orders', columns: ['status', 'placed_at'] },
    { name: 'ix_order_items_order_id', table: 'order_items', columns: ['order_id'] },
    { name: 'ix_order_items_product_id', table: 'order_items', columns: ['product_id'] },
    { name: 'ix_reviews_product_id', table: 'reviews', columns: ['product_id'] },
    { name: 'ix_reviews_customer_id', table: 'reviews', columns: ['customer_id'] },
    { name: 'ix_customers_email', table: 'customers', columns: ['email'] },
    { name: 'ix_cards_customer_id', table: 'cards', columns: ['customer_id'] },
  ],
};
export type IndexSet = keyof typeof INDEX_SETS;
