#!/usr/bin/env node
// CPU per call of the server's OpenTelemetry hooks alone, without the server around them: each
// call is what an HTTP tool call does to its telemetry (the request span, the method, the tool
// span, one statement span, their metric points), 10 calls in flight, exporting over OTLP/HTTP to
// a sink in another process. Without the server's own work the figure moves far less on a shared
// machine than otel-overhead.mjs's. Another build's hooks (`--baseline`, its dist/) alternate with
// this build's (its `@mcp-db-bench/server/testing` entry), round by round; OTEL_* variables of the shell (a protocol, a sampler) apply to both.
//
//   node bench/otel-hooks.mjs [--baseline OTHER/packages/server/dist] [--rounds 7] [--calls 20000]
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
/** @import { IncomingMessage, ServerResponse } from 'node:http' */
import { parseArgs } from 'node:util';
import { median } from '@mcp-db-bench/contract';
import { engineForUrl } from '@mcp-db-bench/engines';

const { values: opts } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '20000' },
    child: { type: 'string' },
    sink: { type: 'boolean', default: false },
  },
});
/** Names this build where a build's dist/ is asked for. */
const THIS = 'this';

if (opts.sink) {
  // the sink: answers every export, keeps nothing
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': req.headers['content-type'] }).end());
  });
  server.listen(0, '127.0.0.1', () =>
    console.log(/** @type {import('node:net').AddressInfo} */ (server.address()).port),
  );
} else if (opts.child) {
  console.log(JSON.stringify(await measure(opts.child, Number(opts.calls))));
  process.exit(0);
} else {
  const sink = spawn(process.execPath, [process.argv[1] ?? '', '--sink'], { stdio: ['ignore', 'pipe', 'inherit'] });
  /** @type {string} */
  const port = await new Promise((resolve) => sink.stdout.once('data', (d) => resolve(String(d).trim())));
  const builds = [
    { name: 'this build', dist: THIS },
    ...(opts.baseline ? [{ name: 'baseline', dist: opts.baseline }] : []),
  ];
  const results = new Map(builds.map((b) => [b.name, /** @type {number[]} */ ([])]));
  try {
    for (let round = 0; round < Number(opts.rounds); round++) {
      const line = [];
      for (const build of builds.map((_, i) => builds[(i + round) % builds.length] ?? builds[0])) {
        if (!build) continue;
        const r = await child(build.dist, port);
        results.get(build.name)?.push(r.usPerCall);
        line.push(`${build.name} ${r.usPerCall.toFixed(1)} µs/call`);
      }
      console.log(`round ${round + 1}: ${line.join(', ')}`);
    }
  } finally {
    sink.kill();
  }
  for (const [name, xs] of results)
    console.log(`  ${name.padEnd(10)} ${median(xs).toFixed(1)} µs CPU per call (median)`);
}

/**
 * @param {string} dist
 * @param {string} port
 * @returns {Promise<{ usPerCall: number }>}
 */
function child(dist, port) {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_METRIC_EXPORT_INTERVAL: process.env.OTEL_METRIC_EXPORT_INTERVAL ?? '5000',
    };
    const args = [process.argv[1] ?? '', '--child', dist, '--calls', opts.calls];
    const c = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (/** @type {Buffer} */ d) => {
      out += d;
    });
    c.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  });
}

/**
 * @param {string} dist {@link THIS}, or another build's dist/
 * @param {number} calls
 */
async function measure(dist, calls) {
  /** @type {{ startTelemetry: (env: NodeJS.ProcessEnv) => Promise<import('@mcp-db-bench/server/testing').Telemetry> }} */
  const build =
    dist === THIS ? await import('@mcp-db-bench/server/testing') : await import(`${dist}/telemetry/index.js`);
  const telemetry = await build.startTelemetry(process.env);
  const observer = telemetry.observer(engineForUrl('sqlite::memory:'));
  if (!observer) throw new Error('the telemetry has no statement observer: is OTEL_EXPORTER_OTLP_ENDPOINT set?');
  const sql = 'select "id", "customer_id", "status" from "orders" where "id" = ? limit 2';
  const outcome = { isError: false, rows: 1 };
  const one = () =>
    new Promise((resolve) => {
      // What the hooks read of a request and its response.
      const res = /** @type {ServerResponse} */ (
        /** @type {unknown} */ (Object.assign(new EventEmitter(), { statusCode: 200 }))
      );
      const req = /** @type {IncomingMessage} */ (/** @type {unknown} */ ({ method: 'POST' }));
      telemetry.request(req, res, () => {
        telemetry.method('tools/call');
        telemetry
          .tool(
            'get',
            async () => {
              const done = observer.statement(sql);
              await null;
              done();
              return outcome;
            },
            () => ({ rows: 1 }),
          )
          .then(() => {
            res.emit('close');
            resolve(undefined);
          });
      });
    });
  const run = async (/** @type {number} */ n) => {
    const lane = async (/** @type {number} */ k) => {
      for (let i = k; i < n; i += 10) await one();
    };
    await Promise.all(Array.from({ length: 10 }, (_, k) => lane(k)));
  };
  await run(calls / 4); // warm-up: the JIT, the exporter's first connections
  const before = process.cpuUsage();
  await run(calls);
  // the spans still queued are exported inside the measured CPU, as a running server would
  await telemetry.shutdown();
  const used = process.cpuUsage(before);
  return { usPerCall: (used.user + used.system) / calls };
}
