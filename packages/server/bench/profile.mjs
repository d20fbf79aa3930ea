#!/usr/bin/env node
// Where the server's time goes per call: runs the built server under --cpu-prof, sends calls one
// at a time, and prints the server's CPU per call by layer and the costliest functions.
//
//   node bench/profile.mjs [--rows 25600] [--calls 5000] [--warmup 500] [--era modern|legacy]
//                          [--tool get|query|filtered|echo] [--shape NAME] [--top 25] [--keep DIR]
//                          [--bin PATH] [--url URL]
//
// --url profiles against a database seeded by `mcp-db-bench seed` (its orders and customers
// tables; give --rows as its orders count) instead of a new SQLite file.
// --tool filtered sends the peers bench's five filtered shapes (apps/cli/bench/go-client/filtered.go)
// in turn, limit 25, no order, with values in the seeded dataset's ranges; --shape one of them alone
// (f-status-total, f-fk, f-status-since, f-fk-between, f-total-between).
// --bin profiles another build of the server (e.g. a checkout of an earlier commit) for a before/after.
// --keep writes the .cpuprofile there (open it in Chrome DevTools or speedscope for a flame graph).
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { client, keys, seed, startServer } from './support.mjs';

/** @import { CallFrame, Profile } from './support.mjs' */

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '25600' },
    calls: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '500' },
    era: { type: 'string', default: 'modern' },
    tool: { type: 'string', default: 'get' },
    shape: { type: 'string' },
    top: { type: 'string', default: '25' },
    keep: { type: 'string' },
    bin: { type: 'string' },
    url: { type: 'string' },
  },
});
const rows = Number(opts.rows);
const calls = Number(opts.calls);
const warmup = Number(opts.warmup);

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-profile-'));
const file = join(dir, 'bench.db');
if (!opts.url) seed(file, rows);
const dbUrl = opts.url ?? `sqlite:${file}`;
const engine = dbUrl.slice(0, dbUrl.indexOf(':'));
const profiles = join(dir, 'profiles');
const server = await startServer(dbUrl, {
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profiles}`],
  args: ['--echo'],
  bin: opts.bin,
});
try {
  const rpc = client(server.endpoint, opts.era);
  await rpc.open();
  const key = keys(rows);
  const customers = Math.max(1, Math.floor(rows / (opts.url ? 3 : 10)));
  const filters = filterShapes(key, customers, opts.shape);
  /** @type {Record<string, () => Promise<import('./support.mjs').Answer>>} */
  const byTool = {
    get: () => rpc.request('tools/call', { name: 'get', arguments: { table: 'orders', key: key() } }, 'get'),
    query: () =>
      rpc.request(
        'tools/call',
        {
          name: 'query',
          arguments: { table: 'orders', filter: `customer_id = ${(key() % customers) + 1}`, limit: 20 },
        },
        'query',
      ),
    filtered: () =>
      rpc.request(
        'tools/call',
        { name: 'query', arguments: { table: 'orders', filter: filters(), limit: 25 } },
        'query',
      ),
    echo: () => rpc.request('tools/call', { name: 'echo', arguments: { message: 'ping' } }, 'echo'),
  };
  const call = byTool[opts.tool];
  if (!call) throw new Error(`--tool must be get, query, filtered or echo`);
  for (let i = 0; i < warmup; i++) await call();
  // The profile's clock is the monotonic clock hrtime reads: count only the measured window.
  const from = process.hrtime.bigint() / 1000n;
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const answer = await call();
    if (!answer.result || answer.result.isError) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const to = process.hrtime.bigint() / 1000n;
  await server.stop();
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (SQLite's
  // worker threads write their own profiles, which this report leaves out). The process that
  // restarts itself in place with its heap flags (heap.ts) leaves a first, short one: the last is the server's.
  const name = readdirSync(profiles)
    .filter((f) => /\.0\.\d+\.cpuprofile$/.test(f))
    .sort()
    .at(-1);
  if (!name) throw new Error(`the server wrote no CPU profile of its main thread in ${profiles}`);
  /** @type {Profile} */
  const profile = JSON.parse(readFileSync(join(profiles, name), 'utf8'));
  if (opts.keep) renameSync(join(profiles, name), join(opts.keep, `${opts.tool}-${opts.era}.cpuprofile`));
  report(profile, calls, calls / seconds, Number(from), Number(to));
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The five filtered shapes of the peers bench, in turn (or `only`), as our query takes them:
 * values drawn from `key` in the seeded dataset's ranges (statuses, totals, 2021 to 2025).
 * @param {() => number} key
 * @param {number} customers
 * @param {string | undefined} only
 * @returns {() => string}
 */
function filterShapes(key, customers, only) {
  const statuses = ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'];
  const day = (/** @type {number} */ n) =>
    new Date(Date.UTC(2021, 0, 1) + (n % (5 * 365 - 30)) * 86_400_000).toISOString().slice(0, 19);
  /** @type {Record<string, (n: number) => string>} */
  const shapes = {
    'f-status-total': (n) => `status = '${statuses[n % 6]}' AND total > ${n % 5000}`,
    'f-fk': (n) => `customer_id = ${(n % customers) + 1}`,
    'f-status-since': (n) => `status = '${statuses[n % 6]}' AND placed_at >= '${day(n)}Z'`,
    'f-fk-between': (n) => `customer_id BETWEEN ${(n % customers) + 1} AND ${(n % customers) + 10}`,
    'f-total-between': (n) => `total BETWEEN ${n % 5000} AND ${(n % 5000) + 500}`,
  };
  if (only !== undefined && !shapes[only]) throw new Error(`--shape is one of ${Object.keys(shapes).join(', ')}`);
  const list = only ? [shapes[only]] : Object.values(shapes);
  let turn = 0;
  return () => (list[turn++ % list.length] ?? String)(key());
}

/**
 * Self time per function and per layer, in microseconds per call.
 * @param {Profile} profile
 * @param {number} totalCalls
 * @param {number} rate
 * @param {number} from
 * @param {number} to
 */
function report(profile, totalCalls, rate, from, to) {
  const self = new Map(profile.nodes.map((n) => [n.id, 0]));
  const { samples, timeDeltas } = profile;
  let at = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    at += timeDeltas[i] ?? 0;
    const id = samples[i] ?? -1;
    if (at >= from && at <= to) self.set(id, (self.get(id) ?? 0) + (timeDeltas[i] ?? 0));
  }
  /** @type {Map<string, number>} */
  const byFunction = new Map();
  /** @type {Map<string, number>} */
  const byLayer = new Map();
  for (const node of profile.nodes) {
    const us = self.get(node.id);
    if (!us) continue;
    const f = node.callFrame;
    const where = f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : '';
    const fn = `${f.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const l = layer(f);
    byLayer.set(l, (byLayer.get(l) ?? 0) + us);
  }
  const busy = [...byLayer].filter(([l]) => l !== '(idle)').reduce((a, [, us]) => a + us, 0);
  const per = (/** @type {number} */ us) => (us / totalCalls).toFixed(1).padStart(7);
  console.log(
    `${opts.tool} on ${engine} (${rows} rows), ${opts.era} era, 1 client: ${rate.toFixed(0)} calls/s; server CPU ${per(busy).trim()} µs per call`,
  );
  console.log('\nserver CPU per call by layer (self time, µs):');
  for (const [l, us] of [...byLayer].filter(([l]) => l !== '(idle)').sort((a, b) => b[1] - a[1]))
    console.log(`  ${per(us)}  ${l}`);
  console.log(`\ntop ${opts.top} functions (self time, µs per call):`);
  for (const [fn, us] of [...byFunction]
    .filter(([f]) => !f.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(opts.top))) {
    console.log(`  ${per(us)}  ${fn}`);
  }
}

/** @param {string} url */
function shortUrl(url) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url.replace(/.*\.pnpm\/[^/]+\//, ''));
  if (pkg) return `${pkg[1]}/${pkg[2]}`;
  return url.replace(/^file:\/\/.*\/packages\//, '').replace(/^node:/, 'node:');
}

/** @param {CallFrame} f */
function layer(f) {
  const url = f.url;
  if (!url) return f.functionName.startsWith('(') ? f.functionName : 'native (V8 / bindings)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url.replace(/.*\.pnpm\/[^/]+\//, ''));
  const name = pkg?.[1];
  if (name) return name.startsWith('@modelcontextprotocol/') ? `MCP SDK (${name.split('/')[1]})` : name;
  if (url.includes('/packages/')) return 'ours (packages/)';
  if (/undici|webstreams/.test(url)) return 'node: web Request/Response (undici, web streams)';
  if (/_http|http|net|internal\/streams/.test(url)) return 'node: http, net and streams';
  return 'node: other';
}
