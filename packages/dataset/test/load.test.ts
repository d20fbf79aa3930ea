import { createHash } from 'node:crypto';
import { engineForUrl } from '@mcp-db-bench/engines';
import { callTool, openDatabase, READ_TOOLS } from '@mcp-db-bench/server';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyIndexSet, Dataset, generateRows, INDEX_SETS, rowCounts, seed, TABLES, type Value } from '../src/index.js';

/**
 * The same scale and seed loaded into every live engine: each table, read back through the
 * server's portable output, must hash the same as the generator's own rows.
 */
const SCALE = 0.002;
const SEED = 5;
const query = READ_TOOLS.find((t) => t.name === 'query')!;
/** Loading a dataset is real work on a shared machine (PGlite took 6 s under load): a bound, not a speed target. */
const LOAD_TIMEOUT_MS = 60_000;

/** A generated value as the server renders it (see PORTABLE_TYPES). */
function portable(type: string, v: Value): Value {
  if (v === null) return null;
  if (type === 'timestamp') return `${(v as string).replace(' ', 'T')}Z`;
  return v;
}

const expected = (() => {
  const g = new Dataset({ seed: SEED, counts: rowCounts(SCALE) });
  const sums: Record<string, string> = {};
  for (const t of TABLES) {
    const h = createHash('sha256');
    generateRows(t, g, 1, g.count(t.name), (row) => {
      h.update(JSON.stringify(Object.fromEntries(t.columns.map((c, i) => [c.name, portable(c.type, row[i]!)]))));
    });
    sums[t.name] = h.digest('hex');
  }
  return sums;
})();

describe.each(liveTargets())('$engine', (target) => {
  let url = '';

  beforeAll(async () => {
    url = await freshDatabase(target, 'bench_dataset');
  });

  it('loads, indexes and verifies the dataset', { timeout: LOAD_TIMEOUT_MS }, async () => {
    const report = await seed({ url, scale: SCALE, seed: SEED, indexes: 'optimized', force: false });
    expect(report.checks.ok).toBe(true);
    expect(report.tables.map((t) => t.rows)).toEqual(TABLES.map((t) => rowCounts(SCALE)[t.name]));
    expect(report.checks.orphans).toHaveLength(16);
  });

  it('holds exactly the generated rows: checksums through the server match the generator', {
    timeout: LOAD_TIMEOUT_MS,
  }, async () => {
    const ctx = await openDatabase({ url, limits: { maxRows: 1000, defaultRows: 1000 } });
    try {
      for (const t of TABLES) {
        const h = createHash('sha256');
        let cursor: string | undefined;
        let rows = 0;
        do {
          const result = await callTool(query, { table: t.name, limit: 1000, ...(cursor ? { cursor } : {}) }, ctx);
          expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
          const page = result.structuredContent as { rows: Record<string, unknown>[]; next_cursor: string | null };
          for (const row of page.rows) h.update(JSON.stringify(row));
          rows += page.rows.length;
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
        expect(rows, t.name).toBe(rowCounts(SCALE)[t.name]);
        expect(h.digest('hex'), t.name).toBe(expected[t.name]);
      }
    } finally {
      await ctx.close();
    }
  });

  it('refuses to overwrite without --force, and reloads with it', { timeout: LOAD_TIMEOUT_MS }, async () => {
    await expect(seed({ url, scale: SCALE, seed: SEED, indexes: 'baseline', force: false })).rejects.toThrow(
      new RegExp(`already has dataset tables .* at scale ${SCALE}, seed ${SEED}; pass --force`),
    );
    const again = await seed({ url, scale: SCALE, seed: SEED, indexes: 'baseline', force: true });
    expect(again.checks.ok).toBe(true);
  });

  it('switches index sets without reloading', { timeout: LOAD_TIMEOUT_MS }, async () => {
    const engine = engineForUrl(url);
    const names = async () => {
      const { db, close } = await engine.connect(url, { poolSize: 1 });
      try {
        return new Set((await engine.introspect(db)).indexes.map((i) => i.name));
      } finally {
        await close();
      }
    };
    const all = INDEX_SETS.optimized.map((i) => i.name);
    const up = await applyIndexSet(url, 'optimized');
    expect(up.created.sort()).toEqual([...all].sort());
    const present = await names();
    for (const n of all) expect(present.has(n), n).toBe(true);
    expect(await applyIndexSet(url, 'optimized')).toEqual({ created: [], dropped: [] });
    const down = await applyIndexSet(url, 'baseline');
    expect(down.dropped.sort()).toEqual([...all].sort());
    const left = await names();
    for (const n of all) expect(left.has(n), n).toBe(false);
  });
});

describe('a load that fails half way', () => {
  it('drops the tables it created and says so', { timeout: LOAD_TIMEOUT_MS }, async () => {
    const [sqlite] = liveTargets();
    const url = await freshDatabase(sqlite!, 'bench_failing');
    const failing = seed({
      url,
      scale: SCALE,
      seed: SEED,
      indexes: 'optimized',
      force: false,
      on: {
        tableDone: (t) => {
          if (t.name === 'products') throw new Error('the disk filled up');
        },
      },
    });
    await expect(failing).rejects.toThrow(
      /the disk filled up \(dropped the partly loaded tables: payments, cards, accounts, reviews, order_items, orders, inventory, products, customers, suppliers, categories\)/,
    );
    const engine = engineForUrl(url);
    const { db, close } = await engine.connect(url, { poolSize: 1 });
    try {
      expect((await engine.introspect(db)).tables).toEqual([]);
    } finally {
      await close();
    }
  });
});
