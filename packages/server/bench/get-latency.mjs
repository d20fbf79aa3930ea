#!/usr/bin/env node
// Per-call latency of `get` on SQLite over Streamable HTTP at one client, and the size of
// tools/list. A stop-gap measuring stick until the agent simulator (mcp-db-bench run) lands:
//
//   node bench/get-latency.mjs [--rows 25600] [--calls 5000] [--warmup 500] [--era modern|legacy]
//
// It seeds a SQLite file, starts the built bin (dist/bin.js) as its own process, sends
// hand-built JSON-RPC over one keep-alive connection, one call at a time, and prints
// percentiles of the client-observed round trip.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '25600' },
    calls: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '500' },
    era: { type: 'string', default: 'modern' },
  },
});
const rows = Number(opts.rows);
const calls = Number(opts.calls);
const warmup = Number(opts.warmup);
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-'));
const file = join(dir, 'bench.db');
seed(file, rows);
const server = spawn(process.execPath, [new URL('../dist/bin.js', import.meta.url).pathname, '--url', `sqlite:${file}`, '--http', '--port', '0'], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
try {
  const endpoint = await listening(server);
  const rpc = client(endpoint, opts.era);
  await rpc.open();
  const list = await rpc.request('tools/list', {});
  const toolsBytes = Buffer.byteLength(JSON.stringify(list.result.tools));

  let state = 42;
  const nextKey = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return (state % rows) + 1;
  };
  const get = () => rpc.request('tools/call', { name: 'get', arguments: { table: 'orders', key: nextKey() } }, 'get');
  for (let i = 0; i < warmup; i++) await get();
  const samples = new Float64Array(calls);
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const answer = await get();
    samples[i] = performance.now() - t0;
    if (!answer.result?.structuredContent?.found) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  samples.sort();
  const at = (q) => samples[Math.min(calls - 1, Math.floor(q * calls))].toFixed(3);
  console.log(`get on SQLite (${rows} rows) over HTTP, ${opts.era} era, 1 client, ${calls} calls after ${warmup} warm-up`);
  console.log(`  throughput  ${(calls / seconds).toFixed(0)} calls/s`);
  console.log(`  latency ms  p50 ${at(0.5)}  p90 ${at(0.9)}  p99 ${at(0.99)}  p99.9 ${at(0.999)}  max ${samples[calls - 1].toFixed(3)}`);
  console.log(`  tools/list  ${list.result.tools.length} tools, ${toolsBytes} bytes of JSON`);
} finally {
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}

function seed(path, n) {
  const db = new Database(path);
  db.exec(`create table customers (id integer primary key, name varchar(100) not null);
    create table orders (id integer primary key, customer_id integer not null references customers (id),
      status varchar(20) not null, total decimal(12,2) not null, placed_at timestamp not null);
    create index ix_orders_customer_id on orders (customer_id);`);
  const customers = Math.max(1, Math.floor(n / 10));
  const addCustomer = db.prepare('insert into customers values (?, ?)');
  const addOrder = db.prepare('insert into orders values (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= customers; i++) addCustomer.run(i, `customer ${i}`);
    for (let i = 1; i <= n; i++) {
      const at = new Date(Date.UTC(2022, 0, 1) + i * 60_000).toISOString().replace('T', ' ').replace('Z', '');
      addOrder.run(i, (i % customers) + 1, ['paid', 'shipped', 'pending'][i % 3], ((i * 7919) % 100000) / 100, at);
    }
  })();
  db.close();
}

function listening(child) {
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

/** Minimal JSON-RPC over HTTP for either era, reading JSON or single-event SSE answers. */
function client(endpoint, era) {
  let id = 0;
  const meta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' }, 'io.modelcontextprotocol/clientCapabilities': {} };
  const version = era === 'modern' ? MODERN : LEGACY;
  async function post(body, method, name) {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version };
    if (era === 'modern') Object.assign(headers, { 'mcp-method': method }, name ? { 'mcp-name': name } : {});
    const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (!text) return {};
    const json = text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').find((l) => l.startsWith('data:')).slice(5) : text;
    return JSON.parse(json);
  }
  return {
    async open() {
      if (era === 'modern') return;
      await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '0' } } }, 'initialize');
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'notifications/initialized');
    },
    request(method, params, name) {
      const p = era === 'modern' ? { ...params, _meta: meta } : params;
      return post({ jsonrpc: '2.0', id: ++id, method, params: p }, method, name);
    },
  };
}
