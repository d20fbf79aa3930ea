import type { QueryInput } from '@mcp-db-bench/contract';
import { ENGINES, type Engine } from '@mcp-db-bench/engines';
import { testDatabasesOf, testFactsOf } from '@mcp-db-bench/engines/testing';
import { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../src/catalog/build.js';
import { DEFAULT_LIMITS } from '../src/context.js';
import { planQuery } from '../src/tools/query.js';
import { scratch } from './fixtures/scratch/index.js';
import { loadParityFixture, parityRows } from './support/fixture.js';
import { loadShop, SHOP, shopCatalog } from './support/shop.js';

/**
 * A new SQL family is one folder and one line: the scratch family (fixtures/scratch, laid out as
 * an engine folder) is added to the engines here as the registry would add it, and the shared
 * test support creates its databases, loads the shop and the parity fixture in its own column
 * types and compiles the tools' SQL for it, reading nothing but its definition.
 */
// The one line: in packages/engines/src/registry.ts it is `export { scratch } from './scratch/index.js';`.
const engines: readonly Engine<string>[] = [...ENGINES, scratch];

const target = (family: string) => engines.find((e) => e.family === family)!;
const limits = DEFAULT_LIMITS;

describe('a scratch SQL family', () => {
  it("is a family of its own beside the registry's, with every test fact a suite asks for", () => {
    expect(new Set(engines.map((e) => e.family)).size).toBe(new Set(ENGINES.map((e) => e.family)).size + 1);
    expect(target('scratch')).toBe(scratch);
    // what the suites filter their targets on (timeouts.test.ts, abandon.test.ts, pool.test.ts)
    expect(Boolean(testFactsOf(scratch).slow && scratch.cancelsStatements)).toBe(true);
    expect(scratch.oneProcess).toBe(false);
    expect(testFactsOf(scratch).sessions).toBeUndefined();
  });

  it('gets a fresh database and the shop, in its own column types, from the shared support', async () => {
    const url = await testDatabasesOf(scratch)!.fresh('scratch:', 'bench_scratch_shop');
    await loadShop(url, scratch);
    const { db, close } = await scratch.connect(url, { poolSize: 1 });
    try {
      const raw = await scratch.introspect(db);
      const declared = raw.columns.filter((c) => c.table === 'customers').map((c) => c.nativeType);
      expect(declared).toContain('nvarchar(100)');
      expect(raw.tables.map((t) => t.name).sort()).toEqual([...SHOP.map((t) => t.name), 'paid_orders'].sort());

      // the query tool's plan, compiled by the family's dialect and run on its connection (the server's
      // types take the registry's families, which the real line would add this one to)
      const served = scratch as unknown as Engine;
      const compiler = new Kysely({ dialect: scratch.compileOnlyDialect() });
      const catalog = buildCatalog(raw, new Map());
      const args: QueryInput = {
        table: 'orders',
        columns: ['id'],
        filter: "status = 'paid' and customer_id <= 6",
        order_by: ['id'],
      };
      const plan = planQuery(args, catalog, served, compiler, limits);
      const rows = (await db.executeQuery<{ id: number }>(plan.compiled)).rows.map((r) => Number(r.id));
      expect(rows.length).toBeGreaterThan(0);
      expect(plan.compiled.sql).toBe(planQuery(args, shopCatalog(), served, compiler, limits).compiled.sql);
    } finally {
      await close();
    }
  });

  it('loads the parity fixture from its own schema', async () => {
    const url = await testDatabasesOf(scratch)!.fresh('scratch:', 'bench_scratch_parity');
    await loadParityFixture(url, scratch);
    const { db, close } = await scratch.connect(url, { poolSize: 1 });
    try {
      const raw = await scratch.introspect(db);
      for (const [table, rows] of Object.entries(parityRows())) {
        const count = (await db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirst()) as {
          n: unknown;
        };
        expect(Number(count.n), table).toBe(rows.length);
        expect(raw.tables.some((t) => t.name === table)).toBe(true);
      }
    } finally {
      await close();
    }
  });
});
