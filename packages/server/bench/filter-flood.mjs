#!/usr/bin/env node
// Issue 53's flood: `query` calls whose filter ORs 499 in-lists of 1,000 values (499,000 bound
// values, a 3.4 MB body) from several clients in a loop, while another client calls `get`. Before
// the ceiling on bound values each such call held the server's event loop for over a second, and
// everyone else's calls waited behind it. It prints how long each refusal took, the `get` client's
// p50 and p99 alone and during the flood, the server's event-loop delay (measured inside the
// server by loop-delay.mjs) and, on Linux, the server's CPU time per call (which a busy machine
// does not stretch as it stretches the round trips):
//
//   node bench/filter-flood.mjs [--seconds 10] [--flooders 4] [--rows 25600] [--bin OTHER/dist/bin.js]
//
// On SQLite (a seeded file), and on PostgreSQL too when PG_URL is set (two tables made there, and
// dropped after). The server is the built bin, one process (--workers 1), started through the
// package's public entry; --bin runs another build's instead, to compare (one without the
// ceiling answers each flood call after a second or more: run it with fewer --seconds).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServerProcess } from '@mcp-db-bench/server';
import Database from 'better-sqlite3';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    flooders: { type: 'string', default: '4' },
    rows: { type: 'string', default: '25600' },
    bin: { type: 'string' },
  },
});
const SECONDS = Number(opts.seconds);
const FLOODERS = Number(opts.flooders);
const ROWS = Number(opts.rows);
const MODERN = '2026-07-28';
const PROBE = new URL('./loop-delay.mjs', import.meta.url).href;

/** @param {string} prefix */
const SCHEMA = (prefix) => [
  `create table ${prefix}customers (id integer primary key, name varchar(100) not null)`,
  `create table ${prefix}orders (id integer primary key, customer_id integer not null references ${prefix}customers (id), status varchar(20) not null)`,
  `create index ${prefix}orders_customer on ${prefix}orders (customer_id)`,
];

/**
 * A SQLite file with customers and orders; its URL.
 * @param {string} dir
 * @returns {Target}
 */
function seedSqlite(dir) {
  const file = join(dir, 'flood.db');
  const db = new Database(file);
  for (const statement of SCHEMA('')) db.exec(statement);
  const customers = Math.max(1, Math.floor(ROWS / 10));
  const addCustomer = db.prepare('insert into customers values (?, ?)');
  const addOrder = db.prepare('insert into orders values (?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= customers; i++) addCustomer.run(i, `customer ${i}`);
    for (let i = 1; i <= ROWS; i++) addOrder.run(i, (i % customers) + 1, ['paid', 'shipped', 'pending'][i % 3]);
  })();
  db.close();
  return { url: `sqlite:${file}`, table: 'orders', drop: async () => {} };
}

/**
 * The same tables on PostgreSQL, named flood_*; their URL and how to drop them.
 * @param {string} url
 * @returns {Promise<Target>}
 */
async function seedPostgres(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client(url);
  await client.connect();
  await client.query('drop table if exists flood_orders, flood_customers');
  for (const statement of SCHEMA('flood_')) await client.query(statement);
  const customers = Math.max(1, Math.floor(ROWS / 10));
  await client.query('insert into flood_customers select i, $1 || i from generate_series(1, $2::int) i', [
    'customer ',
    customers,
  ]);
  await client.query(
    `insert into flood_orders select i, (i % $1::int) + 1, (array['paid','shipped','pending'])[i % 3 + 1] from generate_series(1, $2::int) i`,
    [customers, ROWS],
  );
  await client.query('analyze flood_customers; analyze flood_orders');
  await client.end();
  const drop = async () => {
    const c = new pg.Client(url);
    await c.connect();
    await c.query('drop table if exists flood_orders, flood_customers');
    await c.end();
  };
  return { url, table: 'flood_orders', drop };
}

/**
 * One tool call in the stateless 2026 era: its round trip in ms and its result.
 * @param {string} endpoint
 * @param {string} name
 * @param {string | Record<string, unknown>} args a request's JSON already made, or the tool's arguments
 * @returns {Promise<{ ms: number, result: any }>}
 */
async function call(endpoint, name, args) {
  const started = performance.now();
  const body = typeof args === 'string' ? args : JSON.stringify(request(name, args));
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body,
  });
  const text = await res.text();
  const elapsedMs = performance.now() - started;
  const json = JSON.parse(
    text.startsWith('event:') || text.startsWith('data:') ? (text.split('data:')[1] ?? '') : text,
  );
  return { ms: elapsedMs, result: json.result };
}

/** @param {string} name @param {Record<string, unknown>} args */
function request(name, args) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'filter-flood', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta } };
}

/**
 * `get` calls one after another until `until()`; their round trips.
 * @param {string} endpoint @param {string} table @param {() => boolean} until
 */
async function getLoop(endpoint, table, until) {
  /** @type {number[]} */
  const times = [];
  let key = 1;
  while (!until()) {
    key = (key * 7919) % ROWS || 1;
    const { ms, result } = await call(endpoint, 'get', { table, key });
    if (!result?.structuredContent?.found) throw new Error(`get failed: ${JSON.stringify(result).slice(0, 200)}`);
    times.push(ms);
  }
  return times;
}

/**
 * The 499,000-value call, refused again and again until `until()`; each refusal's round trip.
 * @param {string} endpoint @param {string} body @param {() => boolean} until
 */
async function floodLoop(endpoint, body, until) {
  /** @type {number[]} */
  const times = [];
  while (!until()) {
    const { ms, result } = await call(endpoint, 'query', body);
    // refused: limit_exceeded here, the database's own error from a build without the ceiling
    if (!result?.isError) throw new Error(`not refused: ${JSON.stringify(result).slice(0, 200)}`);
    times.push(ms);
  }
  return times;
}

/** @param {number[]} sorted @param {number} q */
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
/** @param {number[]} times */
const fmt = (times) => {
  const s = [...times].sort((a, b) => a - b);
  return `n ${s.length}, p50 ${quantile(s, 0.5).toFixed(1)} ms, p99 ${quantile(s, 0.99).toFixed(1)} ms, max ${(s.at(-1) ?? NaN).toFixed(1)} ms`;
};

/**
 * The CPU time a process has used, in ms (Linux's /proc; NaN elsewhere).
 * @param {number | undefined} pid
 */
function cpuMs(pid) {
  try {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in ticks of 10 ms
  } catch {
    return Number.NaN;
  }
}

/**
 * The server's event-loop delay lines written since `from` (an offset into its stderr): the worst max and p99.
 * @param {string} stderr @param {number} from
 */
function loopDelay(stderr, from) {
  const lines = [...stderr.slice(from).matchAll(/loop-delay: max ([\d.]+) ms, p99 ([\d.]+) ms/g)];
  const max = Math.max(...lines.map((m) => Number(m[1])));
  const p99 = Math.max(...lines.map((m) => Number(m[2])));
  return `max ${max.toFixed(1)} ms, worst 250 ms p99 ${p99.toFixed(1)} ms (${lines.length} intervals)`;
}

/** @typedef {{ url: string, table: string, drop: () => Promise<void> }} Target */

/** @param {string} label @param {Target} target */
async function measure(label, target) {
  const server = await startServerProcess(['--url', target.url, '--http', '--port', '0', '--workers', '1'], {
    nodeArgs: ['--import', PROBE],
    ...(opts.bin && { bin: opts.bin }),
  });
  try {
    const { endpoint } = server;
    const lists = Array.from({ length: 499 }, (_, j) => ({
      column: 'customer_id',
      op: 'in',
      value: Array.from({ length: 1000 }, (_, i) => j * 1000 + i + 1),
    }));
    const flood = JSON.stringify(request('query', { table: target.table, filter: { or: lists } }));
    // warm up both paths
    await getLoop(
      endpoint,
      target.table,
      (
        (n) => () =>
          n-- <= 0
      )(200),
    );
    await floodLoop(
      endpoint,
      flood,
      (
        (n) => () =>
          n-- <= 0
      )(3),
    );

    const phase = async (/** @type {number} */ flooders) => {
      const from = server.stderr().length;
      const cpu = cpuMs(server.child.pid);
      const end = performance.now() + SECONDS * 1000;
      const until = () => performance.now() > end;
      const [gets, ...floods] = await Promise.all([
        getLoop(endpoint, target.table, until),
        ...Array.from({ length: flooders }, () => floodLoop(endpoint, flood, until)),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the last delay line
      const calls = gets.length + floods.flat().length;
      return {
        gets,
        refusals: floods.flat(),
        delay: loopDelay(server.stderr(), from),
        cpu: cpuMs(server.child.pid) - cpu,
        calls,
      };
    };
    const alone = await phase(0);
    const flooded = await phase(FLOODERS);
    console.log(`${label}: ${(flood.length / 1e6).toFixed(1)} MB bodies of 499,000 values, ${SECONDS} s a phase`);
    console.log(
      `  get alone                 ${fmt(alone.gets)}; server CPU ${(alone.cpu / alone.calls).toFixed(2)} ms a call`,
    );
    console.log(`    server event loop       ${alone.delay}`);
    // the gets' own share, as measured alone, taken out
    const perRefusal = (flooded.cpu - (flooded.gets.length * alone.cpu) / alone.calls) / flooded.refusals.length;
    console.log(
      `  ${FLOODERS} flooders: refusals     ${fmt(flooded.refusals)}; server CPU ${perRefusal.toFixed(1)} ms a refusal`,
    );
    console.log(`  ${FLOODERS} flooders: get          ${fmt(flooded.gets)}`);
    console.log(`    server event loop       ${flooded.delay}`);
  } finally {
    await server.stop();
  }
}

console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const dir = mkdtempSync(join(tmpdir(), 'filter-flood-'));
try {
  await measure('SQLite', seedSqlite(dir));
  if (process.env.PG_URL) {
    const pg = await seedPostgres(process.env.PG_URL);
    try {
      await measure('PostgreSQL', pg);
    } finally {
      await pg.drop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(
  `load average at end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
