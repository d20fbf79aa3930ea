#!/usr/bin/env node
// What planning a read costs our server, in-process, with no database round trip: lexing a
// filter, and planning `query` and `get` (statement text and bound values), per call, in a
// tight loop after a warm-up. The hot path's own share of a call, apart from I/O:
//
//   node bench/plan.mjs [--url sqlite:FILE | postgres://... | mysql://...] [--calls 300000]
//
// Without --url it seeds a SQLite file (support.mjs). Keys vary per call, as an agent's do.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { lexFilter, median } from '@mcp-db-bench/contract';
import { openDatabase } from '@mcp-db-bench/server';
import { planGet, planQuery } from '@mcp-db-bench/server/testing';
import { seed } from './support.mjs';

const { values: opts } = parseArgs({
  options: { url: { type: 'string' }, calls: { type: 'string', default: '300000' } },
});
const calls = Number(opts.calls);
const dir = opts.url ? undefined : mkdtempSync(join(tmpdir(), 'mcp-db-bench-'));
if (dir) seed(join(dir, 'bench.db'), 6000);
const ctx = await openDatabase({ url: opts.url ?? `sqlite:${join(dir ?? '', 'bench.db')}` });
const catalog = await ctx.schema.get();

/**
 * Median of 5 timed runs of `calls` calls, in µs per call.
 * @param {string} name
 * @param {(i: number) => unknown} fn
 */
function time(name, fn) {
  for (let i = 0; i < calls / 10; i++) fn(i);
  const runs = [];
  for (let r = 0; r < 5; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn(i);
    runs.push(Number(process.hrtime.bigint() - start) / calls / 1000);
  }
  console.log(`${name.padEnd(34)} ${median(runs).toFixed(2)} µs`);
}

/** @param {import('@mcp-db-bench/contract').QueryInput} args */
const plan = (args) => planQuery(args, catalog, ctx.engine, ctx.db, ctx.limits);
console.log(`${ctx.engine.name}: per call, median of 5 runs of ${calls.toLocaleString('en-US')}`);
time('lexFilter `id = N`', (i) => lexFilter(`id = ${1 + (i % 6000)}`));
time('query `id = N`, limit 1', (i) => plan({ table: 'orders', filter: `id = ${1 + (i % 6000)}`, limit: 1 }));
time('query `customer_id = C`, limit 20', (i) =>
  plan({ table: 'orders', filter: `customer_id = ${1 + (i % 600)}`, limit: 20 }),
);
time('query top 50 by `placed_at desc`', () => plan({ table: 'orders', order_by: ['placed_at desc'], limit: 50 }));
time('get by key', (i) => planGet({ table: 'orders', key: 1 + (i % 6000) }, catalog, ctx.engine, ctx.db));
await ctx.close();
if (dir) rmSync(dir, { recursive: true, force: true });
