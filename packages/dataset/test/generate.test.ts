import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batches, Dataset, generateRows, ITEMS_PER_ORDER, rowCounts, STUDY_TABLES, TABLES } from '../src/index.js';

const digest = (seed: number, scale: number, batchSize: number) => {
  const g = new Dataset({ seed, counts: rowCounts(scale) });
  const out: Record<string, string> = {};
  for (const t of TABLES) {
    const h = createHash('sha256');
    for (const batch of batches(t, g, batchSize)) for (const row of batch) h.update(JSON.stringify(row));
    out[t.name] = h.digest('hex');
  }
  return out;
};

describe('the generator', () => {
  it('splits scale 1 into 2,560,000 study rows the documented way, plus the payment tables', () => {
    const counts = rowCounts(1);
    expect(counts).toEqual({
      categories: 1_000,
      suppliers: 10_000,
      customers: 200_000,
      products: 100_000,
      inventory: 100_000,
      orders: 600_000,
      order_items: 1_200_000,
      reviews: 349_000,
      accounts: 20_000,
      cards: 30_000,
      payments: 0,
    });
    const study = (c: Record<string, number>) => STUDY_TABLES.reduce((n, t) => n + c[t]!, 0);
    expect(study(counts)).toBe(2_560_000);
    expect(study(rowCounts(0.01))).toBe(25_600);
    // every account has its own holder, even where customers are few
    const tiny = rowCounts(0.0001);
    expect(tiny.accounts).toBeLessThanOrEqual(tiny.customers!);
  });

  it.each([0, -1, Number.NaN, 101, Number.POSITIVE_INFINITY])('refuses scale %s with a clear error', (scale) => {
    expect(() => rowCounts(scale)).toThrow(/scale must be a number above 0 and at most 100/);
  });

  it('gives the same rows for the same seed, whatever the batch size', () => {
    expect(digest(7, 0.002, 1000)).toEqual(digest(7, 0.002, 37));
  });

  it('gives different rows for a different seed', () => {
    const a = digest(7, 0.002, 1000);
    const b = digest(8, 0.002, 1000);
    // payments starts empty on every seed: there is nothing in it to differ
    for (const t of TABLES.filter((x) => x.baseRows > 0)) expect(a[t.name], t.name).not.toBe(b[t.name]);
  });

  it('makes every foreign key point at an existing row, and ids 1..n', () => {
    const counts = rowCounts(0.005);
    const g = new Dataset({ seed: 3, counts });
    for (const t of TABLES) {
      let expectedId = 1;
      generateRows(t, g, 1, counts[t.name]!, (row) => {
        expect(row[0]).toBe(expectedId++);
        t.columns.forEach((c, i) => {
          const v = row[i];
          if (v === null) {
            expect(c.nullable, `${t.name}.${c.name} is null`).toBe(true);
            return;
          }
          if (c.references) {
            expect(v as number).toBeGreaterThanOrEqual(1);
            expect(v as number).toBeLessThanOrEqual(counts[c.references]!);
          }
          if (c.type === 'decimal') expect(v).toMatch(new RegExp(`^-?\\d+\\.\\d{${c.scale}}$`));
          if (c.type === 'timestamp') expect(v).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
          if (c.type === 'text') expect((v as string).length).toBeLessThanOrEqual(c.size!);
          if (c.type === 'boolean') expect(typeof v).toBe('boolean');
        });
      });
    }
  }, 30_000);

  it('makes each order total the sum of its items, and skews customers', () => {
    const counts = rowCounts(0.01);
    const g = new Dataset({ seed: 11, counts });
    const orders = TABLES.find((t) => t.name === 'orders')!;
    const items = TABLES.find((t) => t.name === 'order_items')!;
    const lineCents = new Map<number, number>();
    generateRows(items, g, 1, counts.order_items!, (row) => {
      lineCents.set(row[1] as number, (lineCents.get(row[1] as number) ?? 0) + Math.round(Number(row[5]) * 100));
    });
    const perCustomer = new Map<number, number>();
    generateRows(orders, g, 1, counts.orders!, (row) => {
      expect(Math.round(Number(row[3]) * 100)).toBe(lineCents.get(row[0] as number));
      perCustomer.set(row[1] as number, (perCustomer.get(row[1] as number) ?? 0) + 1);
    });
    expect(lineCents.size).toBe(counts.orders);
    expect(counts.order_items).toBe(counts.orders! * ITEMS_PER_ORDER);
    // The busiest tenth of customers place far more than a tenth of the orders.
    const sorted = [...perCustomer.values()].sort((a, b) => b - a);
    const top = sorted.slice(0, Math.ceil(counts.customers! / 10)).reduce((a, b) => a + b, 0);
    expect(top / counts.orders!).toBeGreaterThan(0.3);
  });

  it("gives each account its holder's cards, and money in every account", () => {
    const counts = rowCounts(0.01);
    const g = new Dataset({ seed: 4, counts });
    const accounts = TABLES.find((t) => t.name === 'accounts')!;
    const cards = TABLES.find((t) => t.name === 'cards')!;
    const holder = new Map<number, number>();
    generateRows(accounts, g, 1, counts.accounts!, (row) => {
      holder.set(row[0] as number, row[1] as number);
      expect(Number(row[2])).toBeGreaterThanOrEqual(0);
    });
    const perAccount = new Map<number, number>();
    generateRows(cards, g, 1, counts.cards!, (row) => {
      expect(row[2], `card ${row[0]}`).toBe(holder.get(row[1] as number));
      perAccount.set(row[1] as number, (perAccount.get(row[1] as number) ?? 0) + 1);
    });
    expect(perAccount.size).toBe(counts.accounts);
  });
});
