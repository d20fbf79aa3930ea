// `get` while `sql` calls sleep: does a pool of slow caller-written statements reach the other
// tools? One client calls `get` in a loop; in the loaded phases --sleepers clients each send one
// `sql` call that sleeps 20 s (pg_sleep / SLEEP), more than the sql tool's own connections. The
// quiet and loaded phases take turns (their order alternates by round), so a shared machine's
// drift lands on both:
//
//   pnpm build && node packages/server/bench/sql-starvation.mjs --url $PG_URL [--sleepers 10]
//     [--rounds 3] [--phase-ms 5000] [--server-args="--sql-pool-size 3"] [--bin other/dist/bin.js]
//
// It makes a table of its own (sql_starvation, 1,000 rows) in the database, starts the built bin
// with --sql, and prints get's percentiles per side, their ratio, the sleepers' outcomes and the
// load average.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { engineForUrl } from '@mcp-db-bench/engines';
import { sql } from 'kysely';
import { client, keys, startServer } from './support.mjs';

const { values: o } = parseArgs({
  options: {
    url: { type: 'string' },
    sleepers: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    'phase-ms': { type: 'string', default: '5000' },
    'server-args': { type: 'string', default: '' },
    bin: { type: 'string' },
  },
});
if (!o.url) throw new Error('--url: a PostgreSQL or MySQL/MariaDB database the script may add a table to');
const engine = engineForUrl(o.url);
/** @type {Partial<Record<string, string>>} */
const SLEEPS = { postgres: 'select pg_sleep(20) as slept', mysql: 'select sleep(20) as slept' };
const SLEEP = SLEEPS[engine.family];
if (!SLEEP) throw new Error(`${engine.title}: no sleep to run (PostgreSQL, MySQL or MariaDB)`);
const ROWS = 1000;

const setup = await engine.connect(o.url, { poolSize: 1 });
try {
  await sql`drop table if exists sql_starvation`.execute(setup.db);
  await sql`create table sql_starvation (id integer primary key, name varchar(40) not null)`.execute(setup.db);
  for (let i = 1; i <= ROWS; i += 100) {
    const rows = Array.from({ length: 100 }, (_, j) => sql`(${i + j}, ${`row ${i + j}`})`);
    await sql`insert into sql_starvation (id, name) values ${sql.join(rows)}`.execute(setup.db);
  }
} finally {
  await setup.close();
}

const server = await startServer(o.url, {
  args: ['--sql', ...o['server-args'].split(' ').filter(Boolean)],
  ...(o.bin ? { bin: o.bin } : {}),
});
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nextKey = keys(ROWS);
const reader = client(server.endpoint, 'legacy');
await reader.open();
const get = () =>
  reader.request('tools/call', { name: 'get', arguments: { table: 'sql_starvation', key: nextKey() } }, 'get');

/**
 * get in a loop for `ms`: each call's latency, and the calls that failed.
 * @param {number} ms
 * @returns {Promise<Side>}
 */
async function reads(ms) {
  /** @type {number[]} */
  const samples = [];
  let failed = 0;
  const ends = performance.now() + ms;
  while (performance.now() < ends) {
    const t0 = performance.now();
    const answer = await get();
    samples.push(performance.now() - t0);
    if (!answer.result?.structuredContent?.found) failed++;
  }
  return { samples, failed };
}

/** The sleepers' calls, each from a client of its own; settles with each one's outcome. */
async function sleepers() {
  const calls = Array.from({ length: Number(o.sleepers) }, async () => {
    const c = client(server.endpoint, 'modern');
    const answer = await c.request('tools/call', { name: 'sql', arguments: { sql: SLEEP } }, 'sql');
    const content = answer.result?.structuredContent;
    return answer.result?.isError ? JSON.parse(answer.result.content[0].text).error.code : content ? 'slept' : 'failed';
  });
  return Promise.all(calls);
}

/** @typedef {{ samples: number[], failed: number }} Side */
/** @type {Record<'quiet' | 'loaded', Side>} */
const sides = { quiet: { samples: [], failed: 0 }, loaded: { samples: [], failed: 0 } };
/** @type {Record<string, number>} */
const outcomes = {};
/** @param {'quiet' | 'loaded'} side @param {Side} measured */
const add = (side, { samples, failed }) => {
  sides[side].samples.push(...samples);
  sides[side].failed += failed;
};
try {
  for (let i = 0; i < 200; i++) await get(); // warm-up
  for (let round = 0; round < Number(o.rounds); round++) {
    /** @type {('quiet' | 'loaded')[]} */
    const order = round % 2 === 0 ? ['quiet', 'loaded'] : ['loaded', 'quiet'];
    for (const side of order) {
      if (side === 'quiet') {
        add('quiet', await reads(Number(o['phase-ms'])));
        continue;
      }
      const pending = sleepers();
      await sleep(300); // the sleepers have their connections, or wait for one
      add('loaded', await reads(Number(o['phase-ms'])));
      for (const outcome of await pending) outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  }
} finally {
  await server.stop();
}

/** @param {Float64Array} sorted @param {number} q */
const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
/** @param {'quiet' | 'loaded'} side */
const line = (side) => {
  const sorted = Float64Array.from(sides[side].samples).sort();
  const p = (/** @type {number} */ q) => (at(sorted, q) ?? 0).toFixed(2);
  return {
    p99: at(sorted, 0.99) ?? 0,
    text: `${side}: ${sorted.length} gets, ${sides[side].failed} failed, ms p50 ${p(0.5)} p99 ${p(0.99)} max ${p(1)}`,
  };
};
const quiet = line('quiet');
const loaded = line('loaded');
console.log(
  `get on ${engine.title} while ${o.sleepers} sql calls sleep 20 s (${o.rounds} rounds of ${o['phase-ms']} ms a side, sides alternated)`,
);
console.log(`  ${quiet.text}`);
console.log(`  ${loaded.text}`);
console.log(`  p99 loaded / quiet: ${(loaded.p99 / quiet.p99).toFixed(2)}`);
console.log(`  sql sleepers: ${JSON.stringify(outcomes)}`);
console.log(
  `  load average: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
