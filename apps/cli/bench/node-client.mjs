// The same load as go-client/ and py-client/, through one of our Node clients: the lean one
// (undici, hand-built JSON-RPC: the benchmark's own) or the official TypeScript SDK client.
// Each agent opens a 2025-era session (initialize, then calls on it) and runs closed-loop.
//
//   node apps/cli/bench/node-client.mjs --client lean|sdk --url http://127.0.0.1:7400/mcp \
//     --workload get|query-point|query-fk|top50|session|sql-get|sql-fk --agents 1 --duration 5s --warmup 1s
//     [--sql-tool execute_sql --sql-arg sql]
//
// Prints one JSON object with the fields the Go client prints; clients.mjs runs all of them.
import { createClient, Random } from '@mcp-db-bench/loadgen';
import { scriptOptions } from './options.mjs';
import { runLengths } from './result-file.mjs';

const HELP = `usage: node apps/cli/bench/node-client.mjs --url URL [options]

The Go client's load through one of our Node clients; prints one JSON object (clients.mjs runs it).

  --url URL             the MCP endpoint (required)
  --client NAME         lean (undici, hand-built JSON-RPC) or sdk (the TypeScript SDK) (default lean)
  --workload NAME       get, query-point, query-fk, top50, session, sql-get, sql-fk (default get)
  --agents N            concurrent agents, each with its own session (default 1)
  --duration D          measured window (default 5s)
  --warmup D            unrecorded time first (default 1s)
  --orders N            orders ids 1..N exist (default 6000)
  --customers N         customer ids 1..N exist (default 2000)
  --seed N              seed of the key choice (default 1)
  --sql-tool NAME       the raw-SQL tool of sql-get and sql-fk (default execute_sql)
  --sql-arg NAME        its SQL argument (default sql)
  -h, --help            this text`;

const o = scriptOptions('node-client.mjs', HELP, {
  client: { type: 'string', default: 'lean' },
  url: { type: 'string' },
  workload: { type: 'string', default: 'get' },
  agents: { type: 'string', default: '1' },
  duration: { type: 'string', default: '5s' },
  warmup: { type: 'string', default: '1s' },
  orders: { type: 'string', default: '6000' },
  customers: { type: 'string', default: '2000' },
  seed: { type: 'string', default: '1' },
  'sql-tool': { type: 'string', default: 'execute_sql' },
  'sql-arg': { type: 'string', default: 'sql' },
});
if (!o.url) {
  process.stderr.write('node-client.mjs: --url is required (--help for usage)\n');
  process.exit(2);
}
const seconds = (/** @type {string} */ text) =>
  Number(/^([\d.]+)(ms|s)$/.exec(text)?.[1]) / (text.endsWith('ms') ? 1000 : 1);
const agents = Number(o.agents);
const orders = Number(o.orders);
const customers = Number(o.customers);

const open = async () => {
  const client = createClient({ kind: 'http', url: o.url }, { client: o.client, protocol: 'legacy' });
  const { protocolVersion } = await client.open();
  return { client, protocolVersion };
};

const checked = (/** @type {{ isError?: boolean }} */ result) => {
  if (result.isError) throw Object.assign(new Error('tool error'), { kind: 'tool_error' });
};

/**
 * One operation of the workload on an agent's session (a whole session for `session`).
 * @typedef {(c: import('@mcp-db-bench/loadgen').McpClient, pick: (n: number) => number) => Promise<void>} Operation
 * @type {Record<string, Operation>}
 */
const OPERATIONS = {
  get: (c, pick) => c.callTool('get', { table: 'orders', key: pick(orders) }).then(checked),
  'query-point': (c, pick) =>
    c.callTool('query', { table: 'orders', filter: `id = ${pick(orders)}`, limit: 1 }).then(checked),
  'query-fk': (c, pick) =>
    c.callTool('query', { table: 'orders', filter: `customer_id = ${pick(customers)}`, limit: 20 }).then(checked),
  top50: (c) => c.callTool('query', { table: 'orders', order_by: ['placed_at desc'], limit: 50 }).then(checked),
  // The same two reads through a server's one raw-SQL tool, for servers without ours.
  'sql-get': (c, pick) =>
    c.callTool(o['sql-tool'], { [o['sql-arg']]: `SELECT * FROM orders WHERE id = ${pick(orders)}` }).then(checked),
  'sql-fk': (c, pick) =>
    c
      .callTool(o['sql-tool'], {
        [o['sql-arg']]: `SELECT * FROM orders WHERE customer_id = ${pick(customers)} ORDER BY id LIMIT 20`,
      })
      .then(checked),
  // A new session on the agent's connection (the lean client ends the one it replaces off the
  // timed path; the SDK client ends it in its open()).
  session: async (c) => {
    await c.open();
    await c.listTools();
    for (const [name, args] of /** @type {[string, Record<string, unknown>][]} */ ([
      ['list_tables', {}],
      ['describe_table', { table: 'orders' }],
      ['describe_table', { table: 'customers' }],
    ])) {
      checked(await c.callTool(name, args));
    }
  },
};
const operation = OPERATIONS[o.workload];
if (!operation) {
  process.stderr.write(`node-client.mjs: unknown workload ${o.workload} (--help for usage)\n`);
  process.exit(2);
}

let sessions;
try {
  sessions = await Promise.all(Array.from({ length: agents }, open));
} catch (error) {
  process.stderr.write(`initialize failed against ${o.url}: ${/** @type {Error} */ (error).message}\n`);
  process.exit(1);
}
/** @type {number[]} */
const samples = [];
/** @type {Record<string, number>} */
const errors = {};
const warmupEnds = performance.now() + seconds(o.warmup) * 1000;
const ends = warmupEnds + seconds(o.duration) * 1000;
/** @type {NodeJS.CpuUsage | undefined} */
let cpuStart;
let windowStart = 0;
let windowEnd = 0;
setTimeout(() => {
  cpuStart = process.cpuUsage();
  windowStart = performance.now();
}, seconds(o.warmup) * 1000);

await Promise.all(
  sessions.map(async ({ client }, i) => {
    // One seeded stream per agent; a key in 1..n.
    const random = new Random(Number(o.seed) * 1000 + i);
    const pick = (/** @type {number} */ n) => random.int(1, n);
    for (;;) {
      const start = performance.now();
      if (start >= ends) return;
      try {
        await operation(client, pick);
        const end = performance.now();
        if (start >= warmupEnds) {
          samples.push(end - start);
          windowEnd = Math.max(windowEnd, end);
        }
      } catch (error) {
        const kind = /** @type {{ kind?: string }} */ (error).kind ?? 'error';
        if (start >= warmupEnds) errors[kind] = (errors[kind] ?? 0) + 1;
      }
    }
  }),
);
const cpu = process.cpuUsage(cpuStart);
await Promise.all(sessions.map(({ client }) => client.close()));

samples.sort((a, b) => a - b);
const at = (/** @type {number} */ q) => samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)] ?? 0;
const durationSec = (windowEnd - windowStart) / 1000;
const cpuSec = (cpu.user + cpu.system) / 1e6;
const round = (/** @type {number} */ n, d = 3) => Number(n.toFixed(d));
process.stdout.write(
  `${JSON.stringify({
    client: o.client === 'sdk' ? 'typescript-sdk' : 'mcp-db-bench-lean',
    node: process.version,
    workload: o.workload,
    agents,
    protocolVersion: sessions[0]?.protocolVersion,
    durationSec: round(durationSec),
    calls: samples.length,
    callsPerSec: round(samples.length / durationSec, 1),
    p50Ms: round(at(0.5)),
    p90Ms: round(at(0.9)),
    p99Ms: round(at(0.99)),
    maxMs: round(at(1)),
    errors,
    clientCpuSec: round(cpuSec),
    clientCpuUsPerCall: round((cpuSec * 1e6) / Math.max(1, samples.length), 1),
    latencyUs: runLengths(samples.map((ms) => ms * 1000)),
  })}\n`,
);
