#!/usr/bin/env node
// Where a server's OpenTelemetry CPU goes, from V8 CPU profiles (otel-overhead.mjs --profile DIR):
// the samples inside the SDK's own frames (not our code it calls back, as the request handler
// run inside context.with), by what they were doing; and their share of the busy samples.
//
//   node bench/otel-profile.mjs DIR/*.cpuprofile
import { readFileSync } from 'node:fs';

const OTEL = /@opentelemetry/;
const OURS = /packages\/(server|engines)\/|node_modules\/(zod|better-sqlite3|@modelcontextprotocol)\//;
// module loading at start: not the steady state
const LOADING = /esm\/(utils|loader|translators|module_job)|cjs\/loader/;
/** @type {[string, (has: (re: RegExp) => boolean, entry: string) => boolean][]} */
const CATEGORIES = [
  ['OTLP serialization', (has) => has(/otlp-transformer/)],
  ['HTTP export', (has) => has(/otlp-exporter-base|_http_client|node:net/)],
  ['metric recording', (has) => has(/sdk-metrics/)],
  [
    'context propagation',
    (has, entry) =>
      /^(with|bind|setSpan|active|contextWrapper|getActiveSpan|getSpan)$/.test(entry) ||
      has(/context-async-hooks|async_context_frame/),
  ],
  ['trace and span ids', (has) => has(/generateTraceId|generateSpanId|RandomIdGenerator/)],
  ['attributes', (has) => has(/cleanAttributes|setAttribute|isAttributeValue|sanitizeAttributes/)],
  ['span creation', (_, entry) => /^(startSpan|startActiveSpan)$/.test(entry)],
  ['span end, batch processor', (_, entry) => entry === 'end'],
];

/** @import { CallFrame, Profile } from './support.mjs' */

/** @type {Map<string, number>} */
const totals = new Map();
let busy = 0;
let otel = 0;
for (const file of process.argv.slice(2)) {
  /** @type {Profile} */
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  /** @type {Map<number, number>} */
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    /** @type {CallFrame[]} */
    const stack = [];
    for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node) stack.push(node.callFrame);
    }
    if (stack[0]?.functionName === '(idle)' || stack.some((f) => LOADING.test(f.url))) return;
    busy += dt;
    const outward = stack.reverse();
    const first = outward.findIndex((f) => OTEL.test(f.url));
    if (first < 0 || outward.slice(first + 1).some((f) => OURS.test(f.url))) return;
    otel += dt;
    const inside = outward.slice(first);
    const has = (/** @type {RegExp} */ re) => inside.some((f) => re.test(`${f.functionName} ${f.url}`));
    const name = CATEGORIES.find(([, test]) => test(has, inside[0]?.functionName ?? ''))?.[0] ?? 'other';
    totals.set(name, (totals.get(name) ?? 0) + dt);
  });
}
const shareOf = (/** @type {number} */ x, /** @type {number} */ of) => `${((x / of) * 100).toFixed(0).padStart(3)}%`;
console.log(`the SDK's own frames: ${shareOf(otel, busy)} of the busy samples; of them:`);
for (const [name, t] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`  ${shareOf(t, otel)}  ${name}`);
