#!/usr/bin/env node
/**
 * Records what real MCP hosts put on the wire in a 2025-era (initialize handshake) session
 * over Streamable HTTP, so a test can replay the exact requests against other server
 * configurations and compare the answers.
 *
 *   node packages/server/test/clients/capture-hosts.mjs                 # starts mcp-db-server itself
 *   node packages/server/test/clients/capture-hosts.mjs --url http://127.0.0.1:7400/mcp
 *   options: --out FILE (default fixtures/hosts/legacy-exchanges.json), --only typescript-sdk,python-sdk,...
 *
 * A recording reverse proxy on 127.0.0.1 sits in front of the server; the clients are
 * driven one after another through it, so every exchange belongs to the client running.
 * Without --url the server is the built bin (packages/server/dist/bin.js) over a small
 * SQLite shop; with --url the database must have an `orders` table with `customer_id`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { startServerProcess } from '../../dist/transports/ready.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const BIN = join(ROOT, 'packages/server/dist/bin.js');
const PYTHON = join(ROOT, '.tools/py/bin/python');
const AGENT = join(ROOT, 'packages/loadgen/dist/index.js');
const require = createRequire(import.meta.url);
const run = promisify(execFile);

/** What every client does after connecting and listing tools; the last call must fail as a tool error. */
const CALLS = [
  ['list_tables', {}],
  ['describe_table', { table: 'orders' }],
  ['get', { table: 'orders', key: 1 }],
  ['query', { table: 'orders', filter: 'customer_id = 1', limit: 5 }],
  ['query', { table: 'orders', filter: 'nope = 1' }],
];

/** Never recorded: hop-by-hop or framing details the proxy itself changes, and the clock. */
const DROPPED_REQUEST = new Set(['host', 'content-length', 'connection', 'keep-alive']);
const DROPPED_RESPONSE = new Set([...DROPPED_REQUEST, 'date']);
/** Not passed on by the proxy: Node frames each hop itself. */
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'fixtures/hosts/legacy-exchanges.json') },
    only: { type: 'string' },
  },
});

const dir = mkdtempSync(join(tmpdir(), 'mcp-capture-'));
const children = new Set();
/** Machine-specific strings and their neutral stand-ins, filled in as ports become known. */
const neutral = [
  [dir, '<temp dir>'],
  [ROOT.replace(/\/$/, ''), '/repo'],
];

function neutralize(text) {
  let out = text;
  for (const [from, to] of neutral) out = out.split(from).join(to);
  return out;
}

// ---------------------------------------------------------------- the server under the proxy

function createShop(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file);
  db.exec(`
    create table customers (id integer primary key, name text not null, email text);
    create table orders (
      id integer primary key,
      customer_id integer not null references customers (id),
      status text not null,
      total_cents integer not null,
      note text
    );
    create index ix_orders_customer_id on orders (customer_id);
    insert into customers values (1, 'Ada', 'ada@example.com'), (2, 'Bob', null), (3, 'Chen', 'chen@example.com');
    insert into orders values
      (1, 1, 'paid', 999, 'first'), (2, 2, 'pending', 15, null), (3, 3, 'paid', 4200, 'O''Brien''s gift'),
      (4, 3, 'pending', 75, 'ünïcödé 🎉'), (5, 1, 'cancelled', 0, ''), (6, 1, 'paid', 31, null);
  `);
  db.close();
}

/** The built bin on a fresh SQLite file; resolves with the endpoint from its ready line. */
async function startServer() {
  const file = join(dir, 'shop.db');
  createShop(file);
  const args = ['--url', `sqlite:${file}`, '--http', '--port', '0', '--echo'];
  const server = await startServerProcess(args, { bin: BIN, onSpawn: (child) => children.add(child) });
  return { url: server.endpoint, command: ['mcp-db-server', ...args].join(' ') };
}

// ---------------------------------------------------------------- the recording proxy

/** Lowercased names in arrival order; a repeated name keeps every value, joined as HTTP would. */
function headerObject(raw, dropped) {
  const out = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (dropped.has(name)) continue;
    const value = neutralize(raw[i + 1]);
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

/** The request is passed on whole (it was read to record it), so it gets its own length. */
function forwardedHeaders(raw, host, method, length) {
  const out = [];
  for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i].toLowerCase())) out.push(raw[i], raw[i + 1]);
  out.push('Host', host);
  if (length > 0 || !['GET', 'HEAD', 'DELETE'].includes(method)) out.push('Content-Length', String(length));
  return out;
}

/**
 * The client whose exchanges are being recorded. Every exchange notes the last one of its
 * client that had finished when it arrived (its anchor): clients send POSTs and DELETEs one
 * after another, so anchors order those exactly, while a GET stream opened alongside races
 * the next POST and would reorder the fixture from run to run (see orderExchanges).
 */
let current;

function startProxy(upstream) {
  const target = new URL(upstream);
  let seq = 0;
  const server = createServer((req, res) => {
    const client = current;
    const exchange = { seq: seq++, anchor: client?.lastDone ?? -1, done: false };
    client?.pending.push(exchange);
    const settled = new Promise((resolve) => {
      exchange.finish = (aborted) => {
        if (exchange.done) return;
        exchange.done = true;
        if (aborted) exchange.aborted = true;
        if (client && req.method !== 'GET') client.lastDone = Math.max(client.lastDone, exchange.seq);
        resolve();
      };
    });
    exchange.settled = settled;
    const body = [];
    req.on('data', (chunk) => body.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(body);
      exchange.request = {
        method: req.method,
        path: req.url,
        headers: headerObject(req.rawHeaders, DROPPED_REQUEST),
        body: neutralize(bytes.toString('utf8')),
      };
      const headers = forwardedHeaders(req.rawHeaders, target.host, req.method, bytes.length);
      const up = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (upRes) => {
          const chunks = [];
          const out = {};
          for (let i = 0; i < upRes.rawHeaders.length; i += 2) {
            const name = upRes.rawHeaders[i];
            if (HOP_BY_HOP.has(name.toLowerCase()) && name.toLowerCase() !== 'content-length') continue;
            out[name] = name in out ? [].concat(out[name], upRes.rawHeaders[i + 1]) : upRes.rawHeaders[i + 1];
          }
          res.writeHead(upRes.statusCode, out);
          // SSE must reach the client as it comes, not when the stream ends.
          res.flushHeaders();
          const record = () => {
            exchange.response = {
              status: upRes.statusCode,
              headers: headerObject(upRes.rawHeaders, DROPPED_RESPONSE),
              body: neutralize(Buffer.concat(chunks).toString('utf8')),
            };
          };
          upRes.on('data', (chunk) => {
            chunks.push(chunk);
            res.write(chunk);
          });
          upRes.on('end', () => {
            record();
            res.end();
            exchange.finish(false);
          });
          // A client hanging up on a stream (a GET SSE it no longer wants) ends the upstream one too.
          res.on('close', () => {
            if (exchange.done) return;
            record();
            up.destroy();
            exchange.finish(true);
          });
        },
      );
      up.on('error', (error) => {
        if (exchange.done) return;
        exchange.response = { status: 502, headers: {}, body: `proxy: ${error.message}` };
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${error.message}`);
        exchange.finish(true);
      });
      up.end(bytes);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ server, url: `http://127.0.0.1:${port}${target.pathname}${target.search}` });
    });
  });
}

/** Runs one client's script with the proxy recording, then waits for its streams to end. */
async function record(name, version, drive, extra = {}) {
  const client = { pending: [], lastDone: -1 };
  current = client;
  let error;
  const steps = [];
  try {
    await drive(steps);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  // A client may leave a request or a GET stream open after close: give it a moment, then cut it.
  await Promise.race([Promise.all(client.pending.map((e) => e.settled)), new Promise((r) => setTimeout(r, 3_000))]);
  current = undefined;
  const exchanges = orderExchanges(client.pending).map((e) => ({
    request: e.request ?? { method: '?', path: '?', headers: {}, body: '' },
    response: e.response ?? { status: 0, headers: {}, body: '' },
    ...(e.aborted ? { aborted: 'the client closed the connection before the response ended' } : {}),
    ...(e.done ? {} : { unfinished: 'still open 3 s after the client closed' }),
  }));
  const entry = {
    name,
    version,
    ...neutralStep(extra),
    steps: steps.map(neutralStep),
    ...(error ? { error: neutralize(error) } : {}),
    exchanges,
  };
  const methods = exchanges.map((e) => `${e.request.method}${rpcMethod(e.request.body)}`).join(', ');
  process.stderr.write(
    `${name}${extra.invocation ? ` (${extra.invocation.split(' --method ')[1]})` : ''}: ${exchanges.length} exchanges: ${methods}${error ? `\n  error: ${error}` : ''}\n`,
  );
  return entry;
}

/**
 * Sequential exchanges by anchor; a GET stream right after the exchange it followed, and never
 * before notifications/initialized (the SDKs open it on that exchange's 202: the TypeScript one
 * when it arrives, the Python one as it sends it), so each lands in one place however it raced.
 */
function orderExchanges(exchanges) {
  const isGet = (e) => e.request?.method === 'GET';
  const initialized =
    exchanges.find((e) => rpcMethod(e.request?.body ?? '') === ' notifications/initialized')?.seq ?? -1;
  const key = (e) => (isGet(e) ? Math.max(e.anchor, initialized) : e.anchor);
  // Same anchor: the GET first, since it started on the anchor's answer.
  return exchanges.sort((a, b) => key(a) - key(b) || isGet(b) - isGet(a) || a.seq - b.seq);
}

function rpcMethod(body) {
  try {
    const msg = JSON.parse(body);
    return msg.method ? ` ${msg.method}${msg.params?.name ? ` ${msg.params.name}` : ''}` : '';
  } catch {
    return '';
  }
}

function neutralStep(step) {
  return JSON.parse(neutralize(JSON.stringify(step)));
}

/** Runs one step of a client script, noting how it went instead of stopping the script. */
async function step(steps, label, fn) {
  try {
    const result = await fn();
    steps.push({
      step: label,
      ok: true,
      ...(label.startsWith('tools/call') ? { isError: result?.isError === true } : {}),
    });
    return result;
  } catch (e) {
    steps.push({ step: label, ok: false, error: e instanceof Error ? e.message : String(e) });
    return undefined;
  }
}

// ---------------------------------------------------------------- the clients

/**
 * The version of `name` as `from` resolves it, from the package.json above its entry point
 * (not every package exports ./package.json).
 */
function packageVersion(name, from = import.meta.url) {
  for (let d = dirname(createRequire(from).resolve(name)); d !== dirname(d); d = dirname(d)) {
    try {
      const pkg = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'));
      if (pkg.name === name) return pkg.version;
    } catch {
      // no package.json at this level
    }
  }
  return 'unknown';
}

/** a. The official TypeScript SDK client, v2, in its default (2025 initialize) negotiation mode, said explicitly. */
async function typescriptSdk(url) {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { DEFAULT_CLIENT_INFO } = await import(AGENT);
  return record('typescript-sdk', packageVersion('@modelcontextprotocol/client'), async (steps) => {
    const client = new Client(DEFAULT_CLIENT_INFO, { versionNegotiation: { mode: 'legacy' } });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await step(steps, 'connect', () => client.connect(transport));
    await step(steps, 'tools/list', () => client.listTools());
    for (const [name, args] of CALLS)
      await step(steps, `tools/call ${name}`, () => client.callTool({ name, arguments: args }));
    await step(steps, 'ping', () => client.ping());
    if (typeof transport.terminateSession === 'function')
      await step(steps, 'terminateSession', () => transport.terminateSession());
    await step(steps, 'close', () => client.close());
  });
}

/** b. The official Python client (PyPI `mcp`), forced into the initialize handshake like python_client.py --era legacy. */
const PYTHON_DRIVER = `
import asyncio, importlib.metadata, json, sys
from mcp import Client

async def main(url, calls):
    steps = []
    async def step(label, make):
        try:
            result = await make()
            entry = {"step": label, "ok": True}
            if label.startswith("tools/call"):
                entry["isError"] = bool(result.is_error)
            steps.append(entry)
        except Exception as e:
            steps.append({"step": label, "ok": False, "error": str(e)})
    try:
        async with Client(url, mode="legacy", read_timeout_seconds=30) as client:
            steps.append({"step": "connect", "ok": True})
            await step("tools/list", lambda: client.list_tools())
            for name, args in calls:
                await step("tools/call " + name, lambda name=name, args=args: client.call_tool(name, args))
            await step("ping", lambda: client.send_ping())
        steps.append({"step": "close", "ok": True})
    except Exception as e:
        steps.append({"step": "session", "ok": False, "error": repr(e)})
    print(json.dumps({"version": importlib.metadata.version("mcp"), "steps": steps}))

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
`;

async function pythonSdk(url) {
  const script = join(dir, 'python_driver.py');
  writeFileSync(script, PYTHON_DRIVER);
  let version = 'unknown';
  const entry = await record('python-sdk', version, async (steps) => {
    const { stdout } = await run(PYTHON, [script, url, JSON.stringify(CALLS)], {
      timeout: 90_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const out = JSON.parse(stdout);
    version = out.version;
    steps.push(...out.steps);
  });
  entry.version = version;
  return entry;
}

/** c. The MCP Inspector CLI v2: one process, one session per invocation, as a user would run it. */
async function inspector(url) {
  const pkgJson = require.resolve('@modelcontextprotocol/inspector/package.json');
  const pkg = JSON.parse(readFileSync(pkgJson, 'utf8'));
  const launcher = join(dirname(pkgJson), pkg.bin['mcp-inspector']);
  // It speaks through its own copy of the SDK client, which need not be the workspace's.
  const sdk = packageVersion('@modelcontextprotocol/client', pkgJson);
  const invocations = [
    ['--method', 'tools/list'],
    ...CALLS.map(([name, args]) => [
      '--method',
      'tools/call',
      '--tool-name',
      name,
      ...Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]),
    ]),
  ];
  const entries = [];
  for (const method of invocations) {
    const args = ['--cli', '--format', 'json', '--transport', 'http', url, '--protocol-era', 'legacy', ...method];
    const shown = ['mcp-inspector', ...args.map((a) => (/\s/.test(a) ? `'${a}'` : a))].join(' ');
    entries.push(
      await record(
        'mcp-inspector-cli',
        pkg.version,
        async (steps) => {
          // Its own HOME: the Inspector keeps a catalog and storage under ~/.mcp-inspector.
          const env = {
            ...process.env,
            HOME: dir,
            USERPROFILE: dir,
            MCP_STORAGE_DIR: join(dir, 'inspector-storage'),
            NO_COLOR: '1',
          };
          const label = method
            .slice(1, method.includes('--tool-name') ? 4 : 2)
            .filter((a) => a !== '--tool-name')
            .join(' ');
          const isCall = label.startsWith('tools/call');
          try {
            const { stdout } = await run(process.execPath, [launcher, ...args], {
              timeout: 60_000,
              env,
              maxBuffer: 16 * 1024 * 1024,
            });
            const out = JSON.parse(stdout);
            steps.push({ step: label, ok: true, ...(isCall ? { isError: out.result?.isError === true } : {}) });
          } catch (e) {
            // A tool answering isError:true ends the CLI with status 5 and the result still on stdout: an outcome like any other.
            let result;
            try {
              result = JSON.parse(e.stdout).result;
            } catch {
              // no result: a real failure
            }
            if (result) steps.push({ step: label, ok: true, isError: result.isError === true, exitCode: e.code });
            else
              steps.push({
                step: label,
                ok: false,
                exitCode: e.code,
                error: (e.stderr || e.message).trim().slice(0, 400),
              });
          }
        },
        { sdk: `@modelcontextprotocol/client ${sdk}`, invocation: shown },
      ),
    );
  }
  return entries;
}

/** d. This repo's lean client (undici, hand-built bodies) in 2025 mode. */
async function leanClient(url) {
  const { createClient } = await import(AGENT);
  const version = JSON.parse(readFileSync(join(ROOT, 'packages/loadgen/package.json'), 'utf8')).version;
  return record('mcp-db-bench-lean', version, async (steps) => {
    const client = createClient({ kind: 'http', url }, { client: 'lean', protocol: 'legacy' });
    await step(steps, 'connect', () => client.open());
    await step(steps, 'tools/list', () => client.listTools());
    for (const [name, args] of CALLS) await step(steps, `tools/call ${name}`, () => client.callTool(name, args));
    // The lean client has no ping.
    await step(steps, 'close', () => client.close());
  });
}

// ---------------------------------------------------------------- main

const CLIENTS = {
  'typescript-sdk': typescriptSdk,
  'python-sdk': pythonSdk,
  'mcp-inspector-cli': inspector,
  'mcp-db-bench-lean': leanClient,
};

async function main() {
  const chosen = opts.only ? opts.only.split(',') : Object.keys(CLIENTS);
  for (const name of chosen)
    if (!CLIENTS[name]) throw new Error(`unknown client ${name}; known: ${Object.keys(CLIENTS).join(', ')}`);
  const server = opts.url ? { url: opts.url, command: 'an external server given with --url' } : await startServer();
  const proxy = await startProxy(server.url);
  for (const url of [server.url, proxy.url]) neutral.push([new URL(url).host, '127.0.0.1:PORT']);
  process.stderr.write(`recording ${proxy.url} -> ${server.url}\n`);

  const clients = [];
  for (const name of chosen) {
    const result = await CLIENTS[name](proxy.url);
    clients.push(...[result].flat());
  }
  proxy.server.closeAllConnections();
  proxy.server.close();

  const fixture = {
    note:
      'What real MCP hosts send over Streamable HTTP in a 2025-era session (initialize handshake), and what the server answered. ' +
      'Recorded by a proxy in front of the server: `node packages/server/test/clients/capture-hosts.mjs` ' +
      `(server: ${neutralize(server.command)}${opts.url ? '' : ', over the SQLite shop the script creates'}). ` +
      'Each client entry is one session, its exchanges in request order (a GET stream opened alongside is listed right after ' +
      'notifications/initialized, or after the exchange that had finished when it started). Headers are lowercased in arrival order, without host, content-length, ' +
      'connection, keep-alive (and date in responses); ports and paths are neutralized; session ids are as recorded. ' +
      '`steps` is what the client reported for each call.',
    clients,
  };
  const out = opts.out;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(fixture, null, 2)}\n`);
  process.stderr.write(`wrote ${relative(process.cwd(), out) || out}\n`);
}

async function cleanup() {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  rmSync(dir, { recursive: true, force: true });
}

try {
  await main();
} catch (error) {
  process.stderr.write(`capture-hosts: ${error instanceof Error ? error.stack : error}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
