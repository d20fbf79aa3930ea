// Our server beside the peers in hand, as a new user would run each: default options, one
// database, the same independent Go client (go-client/, net/http, one connection per agent) on
// every server, the servers alternated cell by cell (ours, Faucet, DBHub, ours...) so drift on a
// shared machine hits all alike.
//   ours     the server's bin (mcp-db-server) --http, no other option (whatever its defaults are)
//   faucet   `faucet mcp --transport http` where FAUCET_BIN names a binary built from its source
//            (github.com/faucetdb/faucet: go build ./cmd/faucet); its reads through faucet_query
//   base     ours from another build (--base-bin: its packages/server/dist/bin.js) or with other
//            options (--base-args), started alike, for a before/after alternated in one run
//   recorded ours behind `mcp-db-bench record` (a proxy writing every call to a trace); its CPU
//            column is the proxy's alone
//   dbhub    @bytebase/dbhub --transport http, the version the workspace locks (apps/cli's
//            devDependency; skipped if it cannot start, unless --dbhub insists); its reads as
//            SELECTs through execute_sql
//
//   pnpm build && FAUCET_BIN=path/to/faucet node apps/cli/bench/peers.mjs --db sqlite:shop.db [--db "$PG_URL"]
//     [--agents 1,10,50] [--workloads query-point,query-fk,filtered,top50,churn] (also get, session, and
//     each filtered shape: f-status-total, f-fk, f-status-since, f-fk-between, f-total-between) [--duration 5s]
//     [--warmup 1s] [--prewarm 3s] [--rounds 2] [--servers ours,faucet,dbhub] [--dbhub]
//     [--server-cpus 0 --client-cpus 1]: per core (Linux, taskset): every server pinned to the server
//     CPUs (Go with GOMAXPROCS set to their count), the client and this script to the client CPUs
//     [--client wrk]: the reads through wrk (a C load generator we did not write; Debian's `wrk`)
//     instead, one session shared by its connections (the reads: no session or churn)
//
// Each database must hold the benchmark dataset (mcp-db-bench seed --db URL --scale 0.01).
// Server CPU is read from /proc (utime + stime of the server process and every descendant, plus
// what its ended children used) between the client's `window open` and `window closed` lines.
// Once started, each server gets --prewarm of unrecorded load of every workload measured (a
// Node.js process compiles its hot paths first), then runs from start to end, as deployed: the
// sessions `churn` abandons stay with it, and run last (the default order), they meet no other
// workload. Prints Markdown tables on stdout; progress goes to stderr.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { loadavg, platform, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median as middle } from '@mcp-db-bench/contract';
import { cpuUnder } from '@mcp-db-bench/loadgen';
import { parseReady, SERVER_BIN } from '@mcp-db-bench/server';
import { scriptOptions } from './options.mjs';
import { writeBenchResult } from './result-file.mjs';

const here = (/** @type {string} */ path) => fileURLToPath(new URL(path, import.meta.url));
// the CLI's own bin, as users run it (it runs the build)
const CLI_BIN = here('../bin/mcp-db-bench.js');
// DBHub as the workspace locks it (apps/cli's devDependency), not the newest from npm
const require = createRequire(import.meta.url);
const DBHUB = require('@bytebase/dbhub/package.json');
const DBHUB_MAIN = join(dirname(require.resolve('@bytebase/dbhub/package.json')), DBHUB.bin.dbhub);

const HELP = `usage: FAUCET_BIN=path/to/faucet node apps/cli/bench/peers.mjs --db URL [--db URL ...] [options]

Our server beside Faucet and DBHub, default options, the same Go client, servers alternated.
Each --db must hold the benchmark dataset (mcp-db-bench seed --db URL --scale 0.01).

  --db URL              sqlite:FILE, postgres://..., mysql://... (repeat for several)
  --agents LIST         agent counts (default 1,10,50)
  --workloads LIST      query-point, query-fk, filtered, top50, churn (default), also get,
                        session, and each filtered shape alone: f-status-total, f-fk,
                        f-status-since, f-fk-between, f-total-between
  --servers LIST        ours, faucet, recorded, dbhub, base (default ours,faucet,dbhub)
  --base-bin PATH       the server \`base\` runs: another build's packages/server/dist/bin.js
                        (a before/after alternated cell by cell; \`ours / base\` is added)
  --base-args=ARGS      options \`base\` gets beyond the defaults, e.g. --base-args="--busy-poll 0"
                        (without --base-bin: this build, with these options)
  --duration D          measured time per cell (default 5s)
  --warmup D            unrecorded time before each cell (default 1s)
  --prewarm D           unrecorded load of each workload, once per server after it starts
                        (default 3s; a fresh Node.js process compiles its hot paths first)
  --rounds N            rounds of every cell; each cell prints the median (default 2)
  --dbhub               fail when DBHub cannot be started instead of leaving it out
  --server-cpus LIST    per core (Linux): pin every server to these CPUs...
  --client-cpus LIST    ...and the client and this script to these
  --client NAME         go (default: go-client/, a session per agent) or wrk (wrk on PATH,
                        one connection per agent, one session for all; the reads only:
                        no session or churn)
  --out FILE            also write every cell as a result file (mcp-db-bench report / compare open it;
                        a cell is a step, its server the target, its round the iteration)
  -h, --help            this text

Markdown tables go to stdout, progress to stderr.`;

const o = scriptOptions('peers.mjs', HELP, {
  db: { type: 'string', multiple: true, default: [] },
  agents: { type: 'string', default: '1,10,50' },
  workloads: { type: 'string', default: 'query-point,query-fk,filtered,top50,churn' },
  servers: { type: 'string', default: 'ours,faucet,dbhub' },
  duration: { type: 'string', default: '5s' },
  warmup: { type: 'string', default: '1s' },
  prewarm: { type: 'string', default: '3s' },
  rounds: { type: 'string', default: '2' },
  dbhub: { type: 'boolean', default: false },
  'server-cpus': { type: 'string' },
  'client-cpus': { type: 'string' },
  client: { type: 'string', default: 'go' },
  'base-bin': { type: 'string' },
  'base-args': { type: 'string' },
  out: { type: 'string' },
});
const log = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);
/** @type {(why: string) => never} */
const usage = (why) => {
  log(`peers.mjs: ${why} (--help for usage)`);
  process.exit(2);
};

/**
 * What each workload is called in the table.
 * @type {Record<string, { label: string }>}
 */
const WORKLOADS = {
  get: { label: '`get` by key' },
  'query-point': { label: '`query` `id = N`, limit 1' },
  'query-fk': { label: '`query` `customer_id = C`, limit 20' },
  // as Faucet's users write them: a filter string, limit 25, no order (go-client/filtered.go)
  filtered: { label: 'filtered, 5 shapes, limit 25' },
  'f-status-total': { label: "`status = 'S' AND total > N`" },
  'f-fk': { label: '`customer_id = C`, limit 25' },
  'f-status-since': { label: "`status = 'S' AND placed_at >= 'T'`" },
  'f-fk-between': { label: '`customer_id BETWEEN C AND C+9`' },
  'f-total-between': { label: '`total BETWEEN A AND A+500`' },
  top50: { label: 'top-50 by `placed_at desc`' },
  session: { label: 'session: discover, then `DELETE`' },
  churn: { label: 'session churn: 3 reads, never ended' },
};

/** @type {string[]} */
const workloads = o.workloads.split(',');
for (const w of workloads) if (!WORKLOADS[w]) usage(`unknown workload ${w}: ${Object.keys(WORKLOADS).join(', ')}`);
/** The reads wrk makes (wrk/reads.lua): no session churn or discovery, which wrk cannot express. */
const WRK_WORKLOADS = [
  'query-point',
  'query-fk',
  'top50',
  'filtered',
  'f-status-total',
  'f-fk',
  'f-status-since',
  'f-fk-between',
  'f-total-between',
];
if (o.client !== 'go' && o.client !== 'wrk') usage(`--client is go or wrk: ${o.client}`);
if (o.client === 'wrk') {
  const other = workloads.filter((w) => !WRK_WORKLOADS.includes(w));
  if (other.length) usage(`--client wrk runs ${WRK_WORKLOADS.join(', ')}, not ${other.join(', ')}`);
  // `wrk -v` exits 1 after its version: only a missing binary is an error
  if (spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error)
    usage('--client wrk needs wrk on PATH (Debian: apt-get install wrk)');
}
/** @type {number[]} */
const agentCounts = o.agents.split(',').map(Number);
if (agentCounts.some((n) => !Number.isInteger(n) || n < 1)) usage(`--agents takes whole numbers: ${o.agents}`);
const rounds = Number(o.rounds);
if (!Number.isInteger(rounds) || rounds < 1) usage(`--rounds takes a whole number: ${o.rounds}`);
if (!o.db.length) usage('give at least one --db (sqlite:FILE, postgres://..., mysql://...) holding the dataset');
const pinned = checkPinning();
const seconds = (/** @type {string} */ text) => {
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(text);
  if (!m) usage(`durations look like 5s or 500ms: ${text}`);
  return Number(m[1]) / (m[2] === 'ms' ? 1000 : 1);
};
const cellSeconds = Math.max(seconds(o.warmup) + seconds(o.duration), seconds(o.prewarm));
// the workloads each server runs unrecorded once started (none with --prewarm 0s)
const prewarmed = seconds(o.prewarm) > 0 ? workloads : [];

/** --server-cpus and --client-cpus: Linux with taskset, CPU lists as taskset reads them. */
function checkPinning() {
  const server = o['server-cpus'];
  const client = o['client-cpus'];
  if (server === undefined && client === undefined) return undefined;
  if (platform() !== 'linux') usage('--server-cpus and --client-cpus pin processes with taskset: Linux only');
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
  } catch {
    usage('--server-cpus and --client-cpus need taskset (util-linux): not found');
  }
  for (const list of [server, client])
    if (list !== undefined && !/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(list))
      usage(`a CPU list looks like 0 or 0,2 or 0-3: ${list}`);
  const count = (/** @type {string} */ list) =>
    list.split(',').reduce((n, part) => {
      const [a = 0, b = a] = part.split('-').map(Number);
      return n + b - a + 1;
    }, 0);
  return { server, client, serverCount: server && count(server) };
}

// ---- processes: every one started here is in its own group, stopped whatever happens ----

/** @type {Set<import('node:child_process').ChildProcess>} */
const started = new Set();
/** temporary directories, removed at exit however it comes */
/** @type {Set<string>} */
const dirs = new Set();
const tempDir = (/** @type {string} */ prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
};

/**
 * `command` with `args`, run on `cpus` through taskset when given: [command, args] for spawn.
 * @type {(cpus: string | undefined, command: string, args: string[]) => [string, string[]]}
 */
const onCpus = (cpus, command, args) => (cpus ? ['taskset', ['-c', cpus, command, ...args]] : [command, args]);

/**
 * Spawns `command` (under taskset when `cpus` is given) in its own process group, output kept short.
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, cpus?: string }} [options]
 */
function launch(command, args, { env = process.env, cpus } = {}) {
  const [cmd, argv] = onCpus(cpus, command, args);
  const child =
    /** @type {import('node:child_process').ChildProcessByStdio<null, import('node:stream').Readable, import('node:stream').Readable> & { output: string }} */ (
      spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    );
  started.add(child);
  child.output = '';
  const keep = (/** @type {Buffer} */ chunk) => {
    child.output = (child.output + chunk).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.once('exit', () => started.delete(child));
  return child;
}

/**
 * The whole group: our server's workers, the record proxy's server.
 * @param {import('node:child_process').ChildProcess} child
 * @param {NodeJS.Signals} signal
 */
const signalGroup = (child, signal) => {
  try {
    process.kill(-(child.pid ?? 0), signal);
  } catch {}
};

/** @param {import('node:child_process').ChildProcess} child */
async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.on(signal, () => {
    log(`${signal}: stopping ${started.size} process(es)`);
    for (const child of started) signalGroup(child, 'SIGTERM');
    process.exit(130);
  });
}
process.on('exit', () => {
  for (const child of started) signalGroup(child, 'SIGTERM');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', () => r(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Resolves once the endpoint answers `initialize` with 2xx; rejects if the process ends or time runs out.
 * @param {string} url
 * @param {Child} child
 * @param {number} timeoutMs
 * @param {string} what
 */
async function answering(url, child, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'peers', version: '0' } },
  });
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${what} exited: ${child.output.trim().split('\n').slice(-3).join(' | ')}`);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
        signal: AbortSignal.timeout(2000),
      });
      await res.text();
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `${what} did not answer at ${url} within ${timeoutMs / 1000} s: ${child.output.trim().split('\n').slice(-3).join(' | ')}`,
  );
}

// ---- the databases, as each server wants to be told about them (keyed by SQL family) ----

/** @type {(url: string, key: string, value: string) => string} */
const withParam = (url, key, value) => {
  const u = new URL(url);
  if (!u.searchParams.has(key)) u.searchParams.set(key, value);
  return u.toString();
};

/**
 * How each server is told about a database of one family.
 * @typedef {{ match: (url: string) => boolean, faucet: (url: string) => { driver: string, dsn: string }, dbhub: (url: string) => string }} Family
 */

const sqliteFile = (/** @type {string} */ url) => resolve(url.slice('sqlite:'.length).replace(/^\/\//, ''));
/** @type {Record<string, Family>} */
const FAMILIES = {
  sqlite: {
    match: (url) => url.startsWith('sqlite:'),
    faucet: (url) => ({ driver: 'sqlite', dsn: sqliteFile(url) }),
    // DBHub wants an absolute path (a relative one opened another, empty file: docs/profiles.md)
    dbhub: (url) => `sqlite://${sqliteFile(url)}`,
  },
  postgres: {
    match: (url) => /^postgres(ql)?:\/\//.test(url),
    faucet: (url) => ({ driver: 'postgres', dsn: withParam(url, 'sslmode', 'disable') }),
    dbhub: (url) => withParam(url, 'sslmode', 'disable'),
  },
  mysql: {
    match: (url) => /^(mysql|mariadb):\/\//.test(url),
    // Go's MySQL driver reads user:password@tcp(host:port)/database
    faucet: (url) => {
      const u = new URL(url);
      const auth = `${decodeURIComponent(u.username)}${u.password ? `:${decodeURIComponent(u.password)}` : ''}`;
      return { driver: 'mysql', dsn: `${auth}@tcp(${u.hostname}:${u.port || 3306})${u.pathname}` };
    },
    dbhub: (url) => url,
  },
};

/** @type {(url: string) => [string, Family]} */
const familyOf = (url) =>
  Object.entries(FAMILIES).find(([, f]) => f.match(url)) ?? usage(`no server here reads ${url.split(':')[0]} URLs`);

// ---- the servers ----

/**
 * A process started here, its output's tail kept.
 * @typedef {import('node:child_process').ChildProcessByStdio<null, import('node:stream').Readable, import('node:stream').Readable> & { output: string }} Child
 * @typedef {{ url: string, family: Family, familyName: string, orders: number, customers: number }} Db
 * @typedef {{ child: Child, url: string }} Running
 * @typedef {{ title: string, tools: string[], cannot?: Set<string>, missing: () => string | undefined, start: (db: Db) => Promise<Running> }} Server
 * @typedef {{ calls: number, callsPerSec: number, p50Ms: number, errors: Record<string, number>, serverCpuUsPerCall: number, latencyUs?: [number, number][], durationSec?: number }} Measured
 * @typedef {Measured & { server: string, workload: string, agents: number, round: number }} Result
 */

/**
 * How to start each server on one database, and how the Go client reaches its tools.
 * @type {Record<string, Server>}
 */
const SERVERS = {
  ours: {
    title: 'ours',
    tools: ['-tools', 'ours'],
    missing: () => undefined,
    start: (db) => startOurs(SERVER_BIN, db),
  },
  // another build of ours, for a before/after in one run
  base: {
    title: 'base',
    tools: ['-tools', 'ours'],
    missing: () => (o['base-bin'] || o['base-args'] ? undefined : 'give --base-bin or --base-args'),
    start: (db) =>
      startOurs(o['base-bin'] ? resolve(o['base-bin']) : SERVER_BIN, db, o['base-args']?.split(' ').filter(Boolean)),
  },
  faucet: {
    title: 'Faucet',
    tools: ['-tools', 'faucet', '-service', 'main'],
    missing: () =>
      process.env.FAUCET_BIN ? undefined : 'FAUCET_BIN is not set (build it: go build ./cmd/faucet in its source)',
    async start(db) {
      const faucet = process.env.FAUCET_BIN ?? '';
      // its configuration (the service named main) lives in a data directory of its own
      const dataDir = tempDir('peers-faucet-');
      const { driver, dsn } = db.family.faucet(db.url);
      const env = {
        ...process.env,
        FAUCET_TELEMETRY: '0',
        ...(pinned?.server ? { GOMAXPROCS: String(pinned.serverCount) } : {}),
      };
      execFileSync(faucet, ['--data-dir', dataDir, 'db', 'add', '--name', 'main', '--driver', driver, '--dsn', dsn], {
        env,
        stdio: 'pipe',
      });
      const port = await freePort();
      const child = launch(faucet, ['--data-dir', dataDir, 'mcp', '--transport', 'http', '--port', String(port)], {
        env,
        cpus: pinned?.server,
      });
      const url = `http://127.0.0.1:${port}/mcp`;
      await answering(url, child, 30_000, 'Faucet');
      return { child, url };
    },
  },
  // ours behind `mcp-db-bench record` (the proxy's own CPU in the CPU table): what recording a fleet costs
  recorded: {
    title: 'ours via record',
    tools: ['-tools', 'ours'],
    missing: () => undefined,
    async start(db) {
      const server = await /** @type {Server} */ (SERVERS.ours).start(db);
      const port = await freePort();
      const trace = join(tempDir('peers-record-'), 'trace.jsonl');
      const child = launch(
        process.execPath,
        [CLI_BIN, 'record', '--target', server.url, '--port', String(port), '-o', trace],
        { cpus: pinned?.server },
      );
      const url = `http://127.0.0.1:${port}/mcp`;
      await answering(url, child, 30_000, 'the record proxy');
      return { child, url };
    },
  },
  dbhub: {
    title: 'DBHub',
    tools: ['-tools', 'sql', '-sql-tool', 'execute_sql', '-sql-arg', 'sql'],
    cannot: new Set(['session']),
    missing: () => undefined,
    async start(db) {
      const port = await freePort();
      const child = launch(
        process.execPath,
        [DBHUB_MAIN, '--transport', 'http', '--port', String(port), '--dsn', db.family.dbhub(db.url)],
        { cpus: pinned?.server },
      );
      const url = `http://127.0.0.1:${port}/mcp`;
      await answering(url, child, 60_000, `DBHub ${DBHUB.version}`);
      return { child, url };
    },
  },
};

/**
 * Our server's `bin` on DEFAULT options (what users run) and `extra`, its address once it says it is ready.
 * @param {string} bin
 * @param {Db} db
 * @param {string[]} [extra]
 * @returns {Promise<Running>}
 */
async function startOurs(bin, db, extra = []) {
  const args = [bin, '--url', db.url, '--http', '--port', '0', ...extra];
  const child = launch(process.execPath, args, { cpus: pinned?.server });
  const deadline = Date.now() + 60_000;
  while (parseReady(child.output) === undefined) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`our server (${bin}) did not start: ${child.output.trim()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url: parseReady(child.output) ?? '' };
}

// ---- server CPU from /proc ----

/** CPU µs of `root` and every descendant (ended children included): the run's own reading of /proc. */
const treeCpuUs = (/** @type {number | undefined} */ root) =>
  platform() === 'linux' && root !== undefined ? cpuUnder(root) : Number.NaN;

// ---- the client ----

const work = tempDir('peers-');
const GO_LOAD = join(work, 'go-load');

/**
 * One cell: the Go client against one server; server CPU read over its measured window.
 * @param {Server} server
 * @param {Running} running
 * @param {Db} db
 * @param {string} workload
 * @param {number} agents
 * @param {{ duration?: string, warmup?: string }} [times]
 * @returns {Promise<Measured>}
 */
async function goLoad(server, running, db, workload, agents, { duration = o.duration, warmup = o.warmup } = {}) {
  const args = [
    '-url',
    running.url,
    '-workload',
    workload,
    '-agents',
    String(agents),
    '-duration',
    duration,
    '-warmup',
    warmup,
    '-orders',
    String(db.orders),
    '-customers',
    String(db.customers),
    ...server.tools,
  ];
  /** @type {number | undefined} */
  let cpu0;
  /** @type {number | undefined} */
  let cpuUs;
  const { code, stdout, stderr } = await runClient(...onCpus(pinned?.client, GO_LOAD, args), {
    timeoutMs: (cellSeconds + 90) * 1000,
    onStderr: (stderr) => {
      if (cpu0 === undefined && stderr.includes('go-load: window open')) cpu0 = treeCpuUs(running.child.pid);
      if (cpuUs === undefined && cpu0 !== undefined && stderr.includes('go-load: window closed'))
        cpuUs = treeCpuUs(running.child.pid) - cpu0;
    },
  });
  try {
    // exit 1 with a report is a cell where nothing succeeded (all refused): still a result
    const r = JSON.parse(stdout);
    return { ...r, serverCpuUsPerCall: r.calls > 0 && cpuUs !== undefined ? cpuUs / r.calls : Number.NaN };
  } catch {
    throw new Error(`go-load exited ${code}: ${stderr.trim().split('\n').slice(-2).join(' | ')}`);
  }
}

/**
 * A load client run to its end (stopped after `timeoutMs` when given), tracked in `started` for
 * cleanup: its exit code and output. `onStderr` sees its stderr so far each time it grows.
 */
/**
 * @param {string} cmd
 * @param {string[]} argv
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number, onStderr?: (stderr: string) => void }} [options]
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function runClient(cmd, argv, { env = process.env, timeoutMs, onStderr } = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    started.add(child);
    let stdout = '';
    let stderr = '';
    const timer = timeoutMs && setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.stdout.on('data', (/** @type {Buffer} */ c) => {
      stdout += c;
    });
    child.stderr.on('data', (/** @type {Buffer} */ c) => {
      stderr += c;
      onStderr?.(stderr);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      started.delete(child);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

const WRK_SCRIPT = here('wrk/reads.lua');

/**
 * wrk on `url` for `secs` whole seconds (at least one) on the client CPUs; resolves with its report.
 * @param {string} url
 * @param {Record<string, string>} env
 * @param {number} connections
 * @param {number} secs
 */
async function runWrk(url, env, connections, secs) {
  const args = ['-t1', `-c${connections}`, `-d${Math.max(1, Math.round(secs))}s`, '--latency', '-s', WRK_SCRIPT, url];
  const { code, stdout, stderr } = await runClient(...onCpus(pinned?.client, 'wrk', args), {
    env: { ...process.env, ...env },
  });
  if (code !== 0) throw new Error(`wrk exited ${code}: ${(stderr || stdout).trim().split('\n').slice(-2).join(' | ')}`);
  return stdout;
}

/**
 * The numbers of wrk's text report (`--latency`), in go-load's fields.
 * @param {string} text
 */
function wrkReport(text) {
  const number = (/** @type {RegExp} */ re) => Number(re.exec(text)?.[1] ?? Number.NaN);
  const p50 = /^\s+50%\s+([\d.]+)(us|ms|s)\s*$/m.exec(text);
  /** @type {Record<string, number>} */
  const errors = {};
  const http = number(/Non-2xx or 3xx responses: (\d+)/);
  if (http > 0) errors.http = http;
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  if (socketErrors > 0) errors.socket = socketErrors;
  return {
    calls: number(/(\d+) requests in/),
    callsPerSec: number(/Requests\/sec:\s+([\d.]+)/),
    p50Ms: p50 ? Number(p50[1]) * (p50[2] === 'us' ? 0.001 : p50[2] === 's' ? 1000 : 1) : Number.NaN,
    errors,
  };
}

/**
 * One cell through wrk: a session opened for it, a warm-up that reads every answer (a server that
 * answers a read without rows fails the cell), then the measured run, server CPU read around it.
 * @param {Server} server
 * @param {Running} running
 * @param {Db} db
 * @param {string} workload
 * @param {number} agents
 * @param {{ duration?: string, warmup?: string }} [times]
 * @returns {Promise<Measured>}
 */
async function wrkLoad(server, running, db, workload, agents, { duration = o.duration, warmup = o.warmup } = {}) {
  const session = await openSession(running.url);
  const env = {
    SESSION: session.headers['mcp-session-id'] ?? '',
    PROTOCOL_VERSION: session.headers['mcp-protocol-version'] ?? '',
    TOOLS: server.tools[server.tools.indexOf('-tools') + 1] ?? '',
    WORKLOAD: workload,
    ORDERS: String(db.orders),
    CUSTOMERS: String(db.customers),
  };
  try {
    const check = await runWrk(running.url, { ...env, CHECK: '1' }, agents, seconds(warmup));
    const [, good = '0', bad = '0'] = /reads\.lua: (\d+) good, (\d+) bad/.exec(check) ?? [];
    if (Number(good) === 0 || Number(bad) > 0)
      throw new Error(`${server.title} answered ${bad} of ${Number(good) + Number(bad)} reads without a tool's rows`);
    const cpu0 = treeCpuUs(running.child.pid);
    const report = wrkReport(await runWrk(running.url, env, agents, seconds(duration)));
    const cpuUs = treeCpuUs(running.child.pid) - cpu0;
    return { ...report, serverCpuUsPerCall: report.calls > 0 ? cpuUs / report.calls : Number.NaN };
  } finally {
    await session.end();
  }
}

const drive = o.client === 'wrk' ? wrkLoad : goLoad;

/**
 * A 2025-era session on `url` (initialize, then initialized): its headers, a call on it, its end.
 * @param {string} url
 */
async function openSession(url) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  /**
   * @param {object} body
   * @param {Record<string, string>} [extra]
   * @returns {Promise<{ res: Response, msg: any }>}
   */
  const post = async (body, extra = {}) => {
    const res = await fetch(url, { method: 'POST', headers: { ...base, ...extra }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 200)}`);
    // a notification's 202 has no body; answers come as JSON or as one SSE event
    const json = text.startsWith('{')
      ? text
      : text
          .split('\n')
          .find((l) => l.startsWith('data:'))
          ?.slice(5);
    return { res, msg: json ? JSON.parse(json) : undefined };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'peers', version: '0' } },
  });
  /** @type {Record<string, string>} */
  const headers = { 'mcp-protocol-version': init.msg.result.protocolVersion };
  const sid = init.res.headers.get('mcp-session-id');
  if (sid) headers['mcp-session-id'] = sid;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return {
    headers,
    call: (/** @type {object} */ body) => post(body, headers),
    end: async () => {
      if (sid) await fetch(url, { method: 'DELETE', headers }).catch(() => {});
    },
  };
}

/**
 * The dataset's key ranges, from our server (ids are dense from 1).
 * @param {string} url
 */
async function keyRanges(url) {
  const session = await openSession(url);
  const last = async (/** @type {string} */ table) => {
    const { msg } = await session.call({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'query', arguments: { table, columns: ['id'], order_by: ['id desc'], limit: 1 } },
    });
    const id = Number(msg.result?.structuredContent?.rows?.[0]?.id);
    if (!(id > 0))
      throw new Error(`no ${table} in this database: seed it first (mcp-db-bench seed --db URL --scale 0.01)`);
    return id;
  };
  const ranges = { orders: await last('orders'), customers: await last('customers') };
  await session.end();
  return ranges;
}

// ---- the run ----

/** The median of the values measured (NaN: none). */
const median = (/** @type {number[]} */ xs) => middle(xs.filter((x) => !Number.isNaN(x)));
const n0 = (/** @type {number} */ x) => (Number.isNaN(x) ? '–' : Math.round(x).toLocaleString('en-US'));
const ratio = (/** @type {number} */ a, /** @type {number} */ b) => (a > 0 && b > 0 ? `${(a / b).toFixed(2)}x` : '–');

/** @param {string} dbUrl */
async function measure(dbUrl) {
  const [familyName, family] = familyOf(dbUrl);
  /** @type {Db} */
  const db = { url: dbUrl, family, familyName, orders: 0, customers: 0 };
  /** @type {(Server & { name: string })[]} */
  const servers = [];
  for (const name of o.servers.split(',')) {
    const server = SERVERS[name] ?? usage(`unknown server ${name}: ${Object.keys(SERVERS).join(', ')}`);
    const missing = server.missing();
    if (missing) log(`${server.title} skipped: ${missing}`);
    else servers.push({ name, ...server });
  }
  /** @type {Map<string, Running>} */
  const running = new Map();
  const start = async (/** @type {Server & { name: string }} */ server) => {
    const handle = await server.start(db);
    running.set(server.name, handle);
    log(
      `${server.title} on ${familyName}: ${handle.url} (pid ${handle.child.pid}${pinned?.server ? `, CPUs ${pinned.server}` : ''})`,
    );
  };
  /** @type {Result[]} */
  const results = [];
  /** @type {(name: string) => Running} */
  const runningOf = (name) => {
    const handle = running.get(name);
    if (!handle) throw new Error(`${name} is not running`);
    return handle;
  };
  try {
    for (const server of [...servers]) {
      try {
        await start(server);
      } catch (error) {
        // a peer we do not build: without it the others still run, unless --dbhub insists
        if (server.name !== 'dbhub' || o.dbhub) throw error;
        log(`DBHub skipped: ${/** @type {Error} */ (error).message}`);
        servers.splice(servers.indexOf(server), 1);
      }
    }
    if (!running.has('ours')) throw new Error("our server is needed to read the dataset's key ranges");
    Object.assign(db, await keyRanges(runningOf('ours').url));
    log(`${familyName}: orders 1..${db.orders}, customers 1..${db.customers}`);
    // a fresh Node.js process compiles its hot paths in its first seconds (tens of thousands of
    // calls: its first 1-agent cell ran 10% slower than its later ones): each server gets the
    // same unrecorded load of every workload first, so no cell pays for that
    for (const server of servers)
      for (const workload of prewarmed)
        if (!server.cannot?.has(workload))
          await drive(server, runningOf(server.name), db, workload, 2, { duration: o.prewarm, warmup: '0s' });
    for (const workload of workloads) {
      for (const agents of agentCounts) {
        for (let round = 1; round <= rounds; round++) {
          for (const server of servers) {
            if (server.cannot?.has(workload)) continue;
            try {
              const r = await drive(server, runningOf(server.name), db, workload, agents);
              results.push({ server: server.name, workload, agents, round, ...r });
              const errors = Object.keys(r.errors).length ? `, errors ${JSON.stringify(r.errors)}` : '';
              log(
                `${familyName} ${workload} × ${agents} #${round} ${server.title}: ${n0(r.callsPerSec)}/s, p50 ${r.p50Ms} ms, server CPU ${n0(r.serverCpuUsPerCall)} µs/call${errors}`,
              );
            } catch (error) {
              log(
                `${familyName} ${workload} × ${agents} #${round} ${server.title} failed: ${/** @type {Error} */ (error).message}`,
              );
            }
          }
        }
      }
    }
  } finally {
    // every process started for this database, a server that failed to start included
    for (const child of [...started]) await stopProcess(child);
  }
  return { db, servers, results };
}

/** @param {Awaited<ReturnType<typeof measure>>} measured */
function tables({ db, servers, results }) {
  /** @type {(server: string, workload: string, agents: number) => Result[]} */
  const cell = (server, workload, agents) =>
    results.filter((r) => r.server === server && r.workload === workload && r.agents === agents);
  /** @typedef {(rs: Result[]) => number} Of */
  /** @type {Of} */
  const rate = (rs) => median(rs.map((r) => r.callsPerSec));
  /** @type {Of} */
  const cpu = (rs) => median(rs.map((r) => r.serverCpuUsPerCall));
  /** @type {Of} */
  const p50 = (rs) => median(rs.map((r) => r.p50Ms));
  /** @type {(rs: Result[], workload: string) => string} */
  const rateText = (rs, workload) => {
    if (!rs.length) return '–';
    const refused = median(rs.map((r) => r.errors.refused ?? 0));
    const other = median(
      rs.map((r) => Object.entries(r.errors).reduce((n, [k, v]) => n + (k === 'refused' ? 0 : v), 0)),
    );
    const notes = [
      workload === 'churn' || refused ? `${n0(refused)} refused` : '',
      other ? `${n0(other)} errors` : '',
    ].filter(Boolean);
    return `${n0(rate(rs))}${notes.length ? `, ${notes.join(', ')}` : ''}`;
  };
  // ours over each of these that ran: Faucet, and another build of ours
  const against = [
    ['faucet', 'Faucet'],
    ['base', 'base'],
  ].filter(([name]) => servers.some((s) => s.name === name));
  const head = (/** @type {string} */ unit) =>
    `| workload | agents | ${servers.map((s) => `${s.title} ${unit}`).join(' | ')} |${against.map(([, title]) => ` ours / ${title} |`).join('')}`;
  const rule = `| --- | ---: |${servers.map(() => ' ---: |').join('')}${against.map(() => ' ---: |').join('')}`;
  /** @type {(value: Of, text: (rs: Result[], workload: string) => string) => string[]} */
  const rows = (value, text) =>
    workloads.flatMap((w) =>
      agentCounts.map((a) => {
        const cols = servers.map((s) => text(cell(s.name, w, a), w));
        const r = against
          .map(([name = '']) => ` ${ratio(value(cell('ours', w, a)), value(cell(name, w, a)))} |`)
          .join('');
        return `| ${WORKLOADS[w]?.label} | ${a} | ${cols.join(' | ')} |${r}`;
      }),
    );
  const pin = pinned ? `, servers on CPUs ${pinned.server ?? 'any'}, client on CPUs ${pinned.client ?? 'any'}` : '';
  return [
    `**${db.familyName}** (orders 1..${db.orders.toLocaleString('en-US')}): calls/s, median of ${rounds} round(s) of ${o.duration} per cell after ${o.warmup} warm-up, servers alternated${pin}${o.client === 'wrk' ? ', through wrk (one session, a connection per agent)' : ''}`,
    '',
    head('calls/s'),
    rule,
    ...rows(rate, rateText),
    '',
    'p50 latency per call at the client, ms',
    '',
    head('ms'),
    rule,
    ...rows(p50, (rs) => (rs.length ? p50(rs).toFixed(2) : '–')),
    '',
    `Server CPU per call, µs (user + system of the server's processes over the measured window; churn: per session${servers.some((s) => s.name === 'recorded') ? '; ours via record: the proxy alone' : ''}${pinned ? '' : '; servers not pinned, sharing the cores with the client'})`,
    '',
    head('µs'),
    rule,
    ...rows(cpu, (rs) => n0(cpu(rs))),
  ].join('\n');
}

let out = '';
const startedAt = new Date().toISOString();
/** every database's cells, for --out: each server on each database is a target */
/** @type {(Result & { target: string })[]} */
const cells = [];
if (o.client === 'go') {
  log('building the Go client');
  execFileSync('go', ['build', '-o', GO_LOAD, '.'], { cwd: here('go-client'), stdio: 'pipe' });
}
// this script and its client on the client CPUs, threads already started included
if (pinned?.client)
  execFileSync('taskset', ['-a', '-p', '-c', pinned.client, String(process.pid)], { stdio: 'ignore' });
try {
  for (const url of o.db) {
    const measured = await measure(url);
    out += `${tables(measured)}\n\n`;
    const title = (/** @type {string} */ name) =>
      `${measured.servers.find((s) => s.name === name)?.title ?? name} on ${measured.db.familyName}`;
    cells.push(...measured.results.map((r) => ({ ...r, target: title(r.server) })));
  }
} catch (error) {
  log(`peers.mjs: ${/** @type {Error} */ (error).message}`);
  process.exit(1);
}
const command = `node apps/cli/bench/peers.mjs ${process.argv.slice(2).join(' ')}`.trim();
process.stdout.write(
  `\`${command}\`; load average at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n\n${out}`,
);
if (o.out) {
  // wrk prints percentiles, not every latency: its cells cannot make exact histograms
  const exact = /** @type {import('./result-file.mjs').Cell[]} */ (cells.filter((c) => c.latencyUs));
  writeBenchResult(o.out, {
    command,
    startedAt,
    client: o.client,
    warmupSec: seconds(o.warmup),
    targets: [...new Set(exact.map((c) => c.target))].map((label) => ({ label })),
    cells: exact,
    warnings:
      exact.length < cells.length ? [`${cells.length - exact.length} cell(s) without exact latencies left out`] : [],
  });
}
