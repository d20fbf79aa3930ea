// Do clients we did not write agree with ours? One server, one dataset, the same 2025-era load
// (initialize, then calls on a session) through four clients in turn:
//   lean    our load generator (undici, hand-built JSON-RPC)       node-client.mjs --client lean
//   sdk     the official TypeScript SDK client                     node-client.mjs --client sdk
//   go      Go's net/http, standard library only                   go-client/ (needs `go`); go1: GOMAXPROCS=1
//   python  the official Python `mcp` client                       py-client/load.py (needs its venv)
// Each cell alternates the clients, round by round, so drift on a shared machine hits all alike.
//
//   pnpm build && node apps/cli/bench/clients.mjs [--agents 1,10] [--duration 5s] [--rounds 2]
//     [--workloads get,query-fk,session] (also query-point, top50) [--clients lean,sdk,go,go1,python] [--url URL] [--python PATH]
//     [--workloads sql-get,sql-fk --sql-tool execute_sql --sql-arg sql]: the same reads through a server's raw-SQL tool,
//     for a server without our tools (DBHub's execute_sql; our own `sql` with --sql-tool sql)
//
// Without --url it seeds a temporary SQLite database (26,100 rows, optimized indexes) and starts
// our server on it with its defaults. Prints a Markdown table; progress goes to stderr.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { median } from '@mcp-db-bench/contract';
import { startServerProcess } from '@mcp-db-bench/server';
import { scriptOptions } from './options.mjs';
import { writeBenchResult } from './result-file.mjs';

const run = promisify(execFile);
const here = (/** @type {string} */ path) => fileURLToPath(new URL(path, import.meta.url));
const ROOT = here('../../../');
const HELP = `usage: node apps/cli/bench/clients.mjs [options]

One server, the same 2025-era load through clients we did not write and ours, alternated.
Without --url it seeds a temporary SQLite database and starts our server on its defaults.

  --url URL             an MCP endpoint to load instead (its server holds the dataset)
  --agents LIST         agent counts (default 1,10)
  --workloads LIST      get, query-fk, session (default), also query-point, top50, sql-get, sql-fk
  --clients LIST        lean, sdk, go, go1, python (default: all)
  --duration D          measured time per cell (default 5s)
  --warmup D            unrecorded time before each cell (default 1s)
  --rounds N            rounds of every cell (default 2)
  --out FILE            also write the cells as a result file (mcp-db-bench report / compare open it)
  --python PATH         the Python with the mcp package (default .tools/py/bin/python)
  --sql-tool NAME       the raw-SQL tool of sql-get and sql-fk (DBHub's execute_sql, our sql)
  --sql-arg NAME        its SQL argument (default sql)
  -h, --help            this text

A Markdown table goes to stdout, progress to stderr.`;

const o = scriptOptions('clients.mjs', HELP, {
  url: { type: 'string' },
  agents: { type: 'string', default: '1,10' },
  workloads: { type: 'string', default: 'get,query-fk,session' },
  clients: { type: 'string', default: 'lean,sdk,go,go1,python' },
  duration: { type: 'string', default: '5s' },
  warmup: { type: 'string', default: '1s' },
  rounds: { type: 'string', default: '2' },
  python: { type: 'string', default: join(ROOT, '.tools/py/bin/python') },
  'sql-tool': { type: 'string' },
  'sql-arg': { type: 'string' },
  out: { type: 'string' },
});
const log = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-clients-'));

/**
 * How to run each client: a command line (and its environment), given the load's flags.
 * @typedef {(flags: string[]) => [string, string[], NodeJS.ProcessEnv?]} Command
 */

/** @returns {Record<string, Command>} */
function commands() {
  /** @type {Record<string, Command>} */
  const out = {};
  const node = (/** @type {string} */ client) => /** @type {Command} */ (flags) => [
    process.execPath,
    [here('node-client.mjs'), '--client', client, ...flags],
  ];
  out.lean = node('lean');
  out.sdk = node('sdk');
  // only what the run asked for is built or looked for
  const wanted = new Set(o.clients.split(','));
  if (wanted.has('go') || wanted.has('go1')) {
    try {
      execFileSync('go', ['build', '-o', join(dir, 'go-load'), '.'], { cwd: here('go-client'), stdio: 'pipe' });
      const goFlags = (/** @type {string[]} */ flags) => flags.map((f) => (f.startsWith('--') ? f.slice(1) : f));
      out.go = (flags) => [join(dir, 'go-load'), goFlags(flags)];
      // Go's runtime on one thread: on 2 shared cores it spends about half the CPU per call.
      out.go1 = (flags) => [join(dir, 'go-load'), goFlags(flags), { ...process.env, GOMAXPROCS: '1' }];
    } catch (caught) {
      const error = /** @type {Error & { stderr?: Buffer }} */ (caught);
      log(`go client skipped: ${error.stderr?.toString().trim() || error.message}`);
    }
  }
  if (wanted.has('python')) {
    if (existsSync(o.python)) out.python = (flags) => [o.python, [here('py-client/load.py'), ...flags]];
    else log(`python client skipped: no ${o.python} (.ci/run creates it)`);
  }
  return out;
}

async function serve() {
  if (o.url) return { url: o.url, stop: () => {} };
  const db = `sqlite:${join(dir, 'bench.db')}`;
  log('seeding 26,100 rows (scale 0.01, optimized indexes)');
  await run(process.execPath, [
    here('../bin/mcp-db-bench.js'),
    'seed',
    '--db',
    db,
    '--scale',
    '0.01',
    '--indexes',
    'optimized',
  ]);
  // one server process (--workers 1), as the server's own bench scripts start it
  const { endpoint, stop } = await startServerProcess(['--url', db, '--http', '--port', '0', '--workers', '1']);
  return { url: endpoint, stop };
}

const startedAt = new Date().toISOString();
const server = await serve();
const clients = commands();
/** @type {string[]} */
const chosen = o.clients.split(',').filter((/** @type {string} */ c) => clients[c]);
/** @type {{ name: string, workload: string, agents: number, round: number, callsPerSec: number, p50Ms: number, clientCpuUsPerCall: number, errors: Record<string, number>, latencyUs?: [number, number][], durationSec: number }[]} */
const results = [];
try {
  for (const workload of o.workloads.split(',')) {
    for (const agents of o.agents.split(',')) {
      for (let round = 1; round <= Number(o.rounds); round++) {
        for (const name of chosen) {
          const flags = [
            '--url',
            server.url,
            '--workload',
            workload,
            '--agents',
            agents,
            '--duration',
            o.duration,
            '--warmup',
            o.warmup,
          ];
          for (const flag of ['sql-tool', 'sql-arg']) if (o[flag]) flags.push(`--${flag}`, o[flag]);
          const [command, args, env] = /** @type {Command} */ (clients[name])(flags);
          try {
            const { stdout } = await run(command, args, { env, maxBuffer: 16 * 2 ** 20, timeout: 300_000 });
            const r = JSON.parse(stdout);
            results.push({ name, workload, agents: Number(agents), round, ...r });
            log(
              `${workload} × ${agents} #${round} ${name}: ${Math.round(r.callsPerSec)}/s, p50 ${r.p50Ms} ms, client CPU ${Math.round(r.clientCpuUsPerCall)} µs/call${Object.keys(r.errors).length ? `, errors ${JSON.stringify(r.errors)}` : ''}`,
            );
          } catch (caught) {
            const error = /** @type {Error & { stderr?: Buffer }} */ (caught);
            log(`${workload} × ${agents} ${name} failed: ${error.stderr?.toString().trim() || error.message}`);
          }
        }
      }
    }
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

// One row per cell and client: medians over the rounds, and the ratio to the lean client.
const rows = [];
for (const workload of o.workloads.split(',')) {
  for (const agents of o.agents.split(',').map(Number)) {
    const cell = results.filter((r) => r.workload === workload && r.agents === agents);
    const lean = cell.filter((r) => r.name === 'lean');
    const leanRate = median(lean.map((r) => r.callsPerSec));
    const leanP50 = median(lean.map((r) => r.p50Ms));
    for (const name of chosen) {
      const mine = cell.filter((r) => r.name === name);
      if (!mine.length) continue;
      const rate = median(mine.map((r) => r.callsPerSec));
      const p50 = median(mine.map((r) => r.p50Ms));
      const cpu = median(mine.map((r) => r.clientCpuUsPerCall));
      // Share of one core the client used: near 1, the client is the bottleneck, not the server.
      const busy = (rate * cpu) / 1e6;
      rows.push(
        `| ${workload} | ${agents} | ${name} | ${Math.round(rate).toLocaleString('en-US')} | ${p50.toFixed(2)} | ${Math.round(cpu).toLocaleString('en-US')} | ${Math.round(busy * 100)}% | ${(rate / leanRate).toFixed(2)} | ${(p50 / leanP50).toFixed(2)} |`,
      );
    }
  }
}
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const command = `node apps/cli/bench/clients.mjs ${process.argv.slice(2).join(' ')}`.trim();
process.stdout.write(
  `\`${command}\`: median of ${o.rounds} rounds of ${o.duration} per cell, after ${o.warmup} warm-up; load average at the end ${load}\n\n` +
    '| workload | agents | client | calls/s | p50 ms | client CPU µs/call | client CPU | calls/s vs lean | p50 vs lean |\n' +
    '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n' +
    `${rows.join('\n')}\n`,
);
if (o.out) {
  // a client without exact latencies (the Python one prints percentiles only) stays out of the file
  const exact = results.filter((r) => r.latencyUs);
  const left = [...new Set(results.filter((r) => !r.latencyUs).map((r) => r.name))];
  writeBenchResult(o.out, {
    command,
    startedAt,
    client: chosen.join(','),
    warmupSec: Number(/^([\d.]+)/.exec(o.warmup)?.[1]) / (o.warmup.endsWith('ms') ? 1000 : 1),
    targets: [...new Set(exact.map((r) => r.name))].map((label) => ({ label, url: o.url ?? null })),
    cells: exact.map((r) => ({ ...r, target: r.name, latencyUs: r.latencyUs ?? [] })),
    warnings: left.map((name) => `${name}: no exact latencies, left out of this file`),
  });
}
