#!/usr/bin/env node
// CPU per call of the server's OpenTelemetry hooks alone, without the server around them: each
// call is what an HTTP tool call does to its telemetry (the request span, the method, the tool
// span, one statement span, their metric points), 10 calls in flight, exporting over OTLP/HTTP to
// a sink in another process. Without the server's own work the figure moves far less on a shared
// machine than otel-overhead.mjs's. Another build's hooks (`--baseline`, its dist/) alternate with
// this build's, round by round; OTEL_* variables of the shell (a protocol, a sampler) apply to both.
//
//   node bench/otel-hooks.mjs [--baseline OTHER/packages/server/dist] [--rounds 7] [--calls 20000]
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '20000' },
    child: { type: 'string' },
    sink: { type: 'boolean', default: false },
  },
});
const DIST = new URL('../dist', import.meta.url).pathname;

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
  const sink = spawn(process.execPath, [process.argv[1], '--sink'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => sink.stdout.once('data', (d) => resolve(String(d).trim())));
  const builds = [
    { name: 'this build', dist: DIST },
    ...(opts.baseline ? [{ name: 'baseline', dist: opts.baseline }] : []),
  ];
  const results = new Map(builds.map((b) => [b.name, []]));
  try {
    for (let round = 0; round < Number(opts.rounds); round++) {
      const line = [];
      for (const build of builds.map((_, i) => builds[(i + round) % builds.length])) {
        const r = await child(build.dist, port);
        results.get(build.name).push(r.usPerCall);
        line.push(`${build.name} ${r.usPerCall.toFixed(1)} µs/call`);
      }
      console.log(`round ${round + 1}: ${line.join(', ')}`);
    }
  } finally {
    sink.kill();
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [name, xs] of results)
    console.log(`  ${name.padEnd(10)} ${median(xs).toFixed(1)} µs CPU per call (median)`);
}

function child(dist, port) {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_METRIC_EXPORT_INTERVAL: process.env.OTEL_METRIC_EXPORT_INTERVAL ?? '5000',
    };
    const args = [process.argv[1], '--child', dist, '--calls', opts.calls];
    const c = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
    });
    c.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  });
}

async function measure(dist, calls) {
  const { openTelemetry } = await import(`${dist}/telemetry/otel.js`);
  const telemetry = openTelemetry(process.env);
  const observer = telemetry.observer({ dbSystem: 'sqlite' });
  const sql = 'select "id", "customer_id", "status" from "orders" where "id" = ? limit 2';
  const outcome = { isError: false, rows: 1 };
  const one = () =>
    new Promise((resolve) => {
      const res = /** @type {EventEmitter & { statusCode?: number }} */ (new EventEmitter());
      res.statusCode = 200;
      telemetry.request({ method: 'POST' }, res, () => {
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
            resolve();
          });
      });
    });
  const run = async (n) => {
    const lane = async (k) => {
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
