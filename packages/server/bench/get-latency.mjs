#!/usr/bin/env node
// Per-call latency of `get` on SQLite over Streamable HTTP at one client, and the size of
// tools/list: one number, quickly (mcp-db-bench run and floor measure the rest):
//
//   node bench/get-latency.mjs [--rows 25600] [--calls 5000] [--warmup 500] [--era modern|legacy] [--bin PATH]
//
// It seeds a SQLite file, starts the built bin (dist/bin.js) as its own process, sends
// hand-built JSON-RPC over one keep-alive connection, one call at a time, and prints
// percentiles of the client-observed round trip. `--bin` starts another build's bin (say, main's),
// to compare two builds: alternate them, as the numbers drift on a shared machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { client, cpuSeconds, keys, seed, startServer } from './support.mjs';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '25600' },
    calls: { type: 'string', default: '5000' },
    warmup: { type: 'string', default: '500' },
    era: { type: 'string', default: 'modern' },
    bin: { type: 'string' },
  },
});
const rows = Number(opts.rows);
const calls = Number(opts.calls);
const warmup = Number(opts.warmup);

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-'));
const file = join(dir, 'bench.db');
seed(file, rows);
const server = await startServer(`sqlite:${file}`, opts.bin ? { bin: opts.bin } : {});
try {
  const rpc = client(server.endpoint, opts.era);
  await rpc.open();
  const list = await rpc.request('tools/list', {});
  const toolsBytes = Buffer.byteLength(JSON.stringify(list.result.tools));

  const nextKey = keys(rows);
  const get = () => rpc.request('tools/call', { name: 'get', arguments: { table: 'orders', key: nextKey() } }, 'get');
  for (let i = 0; i < warmup; i++) await get();
  const samples = new Float64Array(calls);
  const pid = server.child.pid;
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const answer = await get();
    samples[i] = performance.now() - t0;
    if (!answer.result?.structuredContent?.found) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuUs = ((cpuSeconds(pid) - cpuBefore) * 1e6) / calls;
  samples.sort();
  /** @param {number} q */
  const at = (q) => (samples[Math.min(calls - 1, Math.floor(q * calls))] ?? Number.NaN).toFixed(3);
  console.log(
    `get on SQLite (${rows} rows) over HTTP, ${opts.era} era, 1 client, ${calls} calls after ${warmup} warm-up`,
  );
  console.log(`  throughput  ${(calls / seconds).toFixed(0)} calls/s`);
  console.log(`  latency ms  p50 ${at(0.5)}  p90 ${at(0.9)}  p99 ${at(0.99)}  p99.9 ${at(0.999)}  max ${at(1)}`);
  console.log(`  server CPU  ${cpuUs.toFixed(0)} µs a call`);
  console.log(`  tools/list  ${list.result.tools.length} tools, ${toolsBytes} bytes of JSON`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
