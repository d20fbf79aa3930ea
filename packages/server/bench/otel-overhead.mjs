#!/usr/bin/env node
// Calls/s of the built server with OpenTelemetry off (no OTLP endpoint set) and on (exporting
// to an OTLP/HTTP sink in this process; every trace, and one in ten), and of another build (`--baseline`, e.g. a checkout
// without telemetry), in one run, the variants alternated round by round; with --baseline-on, the
// other build exports too (every trace), to measure a change to the telemetry itself. `--only`
// names the variants to run, among them the layers: `no metrics` (OTEL_METRICS_EXPORTER=none),
// `unsampled` (no metrics, OTEL_TRACES_SAMPLER=always_off: context and unrecorded spans alone) and
// `metrics only` (OTEL_TRACES_EXPORTER=none):
//
//   node bench/otel-overhead.mjs --load GO_LOAD [--baseline OTHER/packages/server/dist/bin.js [--baseline-on]]
//     [--rounds 5] [--agents 10] [--duration 3s] [--warmup 3s] [--workload get] [--db URL] [--only off,on]
//     [--profile DIR]
//
// GO_LOAD is the Go load client built from apps/cli/bench/go-client (`go build -o go-load .`).
// Without --db it seeds a SQLite file with 6,000 orders. It prints each round and the median.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from '@mcp-db-bench/contract';
import { cpuSeconds, SERVER_BIN, seed, startServer } from './support.mjs';

const { values: opts } = parseArgs({
  options: {
    load: { type: 'string' },
    baseline: { type: 'string' },
    'baseline-on': { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    agents: { type: 'string', default: '10' },
    duration: { type: 'string', default: '3s' },
    warmup: { type: 'string', default: '3s' },
    workload: { type: 'string', default: 'get' },
    db: { type: 'string' },
  },
});
if (!opts.load) throw new Error('--load GO_LOAD is required: build it from apps/cli/bench/go-client');
const goLoad = opts.load;

// The sink: what a collector does with OTLP/HTTP, minus the work of keeping it.
let exports = 0;
let exportBytes = 0;
const sink = createServer((req, res) => {
  req.on('data', (/** @type {Buffer} */ chunk) => {
    exportBytes += chunk.length;
  });
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end();
  });
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', () => resolve(undefined)));
const otlp = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (sink.address()).port}`;

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-otel-'));
let url = opts.db;
if (!url) {
  seed(join(dir, 'bench.db'), 6000);
  url = `sqlite:${join(dir, 'bench.db')}`;
}

/** @typedef {{ name: string, bin: string, env: Record<string, string>, extra?: boolean, silent?: boolean }} Variant */

const on = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp, OTEL_METRIC_EXPORT_INTERVAL: '5000' };
/** @type {Variant[]} */
const all = [
  { name: 'off', bin: SERVER_BIN, env: {} },
  { name: 'on', bin: SERVER_BIN, env: on },
  {
    name: 'on 10%',
    bin: SERVER_BIN,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
      OTEL_METRIC_EXPORT_INTERVAL: '5000',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    },
  },
  // what each layer costs, by turning the layers above it off (--only picks them by name)
  { name: 'no metrics', bin: SERVER_BIN, env: { ...on, OTEL_METRICS_EXPORTER: 'none' }, extra: true },
  {
    name: 'unsampled',
    bin: SERVER_BIN,
    env: { ...on, OTEL_METRICS_EXPORTER: 'none', OTEL_TRACES_SAMPLER: 'always_off' },
    extra: true,
    silent: true,
  },
  { name: 'metrics only', bin: SERVER_BIN, env: { ...on, OTEL_TRACES_EXPORTER: 'none' }, extra: true },
  ...(opts.baseline
    ? [
        {
          name: opts['baseline-on'] ? 'baseline on' : 'baseline',
          bin: opts.baseline,
          env: opts['baseline-on'] ? on : {},
        },
      ]
    : []),
];
// --only off,on: a subset (the baseline always runs when given); the layer variants only when named
const only = opts.only?.split(',');
const variants = all.filter((v) => (only ? only.includes(v.name) : !v.extra) || v.bin !== SERVER_BIN);
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));

/**
 * What go-load reports of a run, and the server's CPU over its measured window.
 * @typedef {{ callsPerSec: number, durationSec: number, p50Ms: number, errors: Record<string, number>, serverCpu: number }} Report
 */

/**
 * @param {string} endpoint
 * @param {number | undefined} pid
 * @returns {Promise<Report>}
 */
function load(endpoint, pid) {
  return new Promise((resolve, reject) => {
    const args = [
      '-url',
      endpoint,
      '-workload',
      opts.workload,
      '-agents',
      opts.agents,
      '-duration',
      opts.duration,
      '-warmup',
      opts.warmup,
    ];
    const child = spawn(goLoad, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (/** @type {Buffer} */ chunk) => {
      out += chunk;
    });
    // The server's CPU over go-load's measured window alone: a fresh process compiles its hot paths
    // (the SDK's too) in its first seconds, which a long-running server has long paid for.
    /** @type {{ from?: number, to?: number }} */
    const window = {};
    child.stderr.on('data', (/** @type {Buffer} */ chunk) => {
      const text = String(chunk);
      if (text.includes('window open')) window.from = cpuSeconds(pid);
      if (text.includes('window closed')) window.to = cpuSeconds(pid);
    });
    child.once('exit', (/** @type {number | null} */ code) => {
      const line = out.trim().split('\n').pop();
      if (code !== 0 || !line?.startsWith('{')) return reject(new Error(`go-load exited with ${code}: ${out}`));
      if (window.from === undefined || window.to === undefined) return reject(new Error('go-load said no window'));
      resolve({ ...JSON.parse(line), serverCpu: window.to - window.from });
    });
  });
}

const results = new Map(variants.map((v) => [v.name, /** @type {number[]} */ ([])]));
const cpu = new Map(variants.map((v) => [v.name, /** @type {number[]} */ ([])]));
try {
  for (let round = 0; round < Number(opts.rounds); round++) {
    // Each round in another order, so no variant always runs first (or last) on a warmer machine.
    const order = variants.map((_, i) => /** @type {Variant} */ (variants[(i + round) % variants.length]));
    const line = [];
    for (const variant of order) {
      const before = exports;
      // --profile DIR: each server writes a V8 CPU profile there when it stops (bench/otel-profile.mjs reads it)
      const nodeArgs = opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${opts.profile}`] : [];
      const server = await startServer(url, { bin: variant.bin, env: { ...clean, ...variant.env }, nodeArgs });
      try {
        const report = await load(server.endpoint, server.child.pid);
        const perCall = (report.serverCpu / (report.callsPerSec * report.durationSec)) * 1e6;
        cpu.get(variant.name)?.push(perCall);
        const errors = Object.values(report.errors).reduce((a, b) => a + b, 0);
        if (errors) throw new Error(`${variant.name}: ${errors} errors: ${JSON.stringify(report.errors)}`);
        results.get(variant.name)?.push(report.callsPerSec);
        line.push(
          `${variant.name} ${report.callsPerSec.toFixed(0)} calls/s (p50 ${report.p50Ms} ms, ${perCall.toFixed(0)} µs CPU/call)`,
        );
      } finally {
        await server.stop();
      }
      if ('OTEL_EXPORTER_OTLP_ENDPOINT' in variant.env && !variant.silent && exports === before)
        throw new Error('telemetry on, but the sink got no export');
    }
    console.log(`round ${round + 1}: ${line.join(', ')}`);
  }
  const reference = results.has('off') ? 'off' : (variants[0]?.name ?? '');
  const base = median(results.get(reference) ?? []);
  const baseCpu = median(cpu.get(reference) ?? []);
  console.log(`${opts.workload}, ${opts.agents} agents, ${opts.duration} per round, ${opts.rounds} rounds; medians:`);
  for (const [name, xs] of results) {
    const m = median(xs);
    const c = median(cpu.get(name) ?? []);
    const vs = (/** @type {number} */ x, /** @type {number} */ b) =>
      `${x >= b ? '+' : ''}${((x / b - 1) * 100).toFixed(1)}%`;
    console.log(
      `  ${name.padEnd(8)} ${m.toFixed(0).padStart(6)} calls/s (${vs(m, base)})  ` +
        `${c.toFixed(0).padStart(5)} µs server CPU per call (${vs(c, baseCpu)})`,
    );
  }
  console.log(`  the sink got ${exports} exports, ${(exportBytes / 1e6).toFixed(1)} MB`);
} finally {
  sink.close();
  rmSync(dir, { recursive: true, force: true });
}
