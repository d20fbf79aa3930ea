// 2025-era sessions opened and abandoned (initialize, one call, never DELETE) as fast as N loops
// can, for a bounded time, against the built server: its resident memory must stay flat, since
// the session table is bounded (--max-sessions) and expires idle sessions (--session-idle).
// Past the limit, each new session ends the least recently used one: none is refused.
//
//   pnpm build && node packages/server/bench/sessions-soak.mjs [--minutes 10] [--loops 8]
//     [--server-args "--max-sessions 10000"]
//
// Prints a Markdown table: memory each minute, sessions opened and refused, growth from the
// first full minute to the end.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LEGACY, seed, startServer } from './support.mjs';

const { values: o } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    loops: { type: 'string', default: '8' },
    'server-args': { type: 'string', default: '' },
  },
});
const minutes = Number(o.minutes);
const dir = mkdtempSync(join(tmpdir(), 'mcp-sessions-soak-'));
seed(join(dir, 'soak.db'), 10_000);
const server = await startServer(`sqlite:${join(dir, 'soak.db')}`, {
  args: o['server-args'].split(' ').filter(Boolean),
});
const rssMb = () =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))?.[1]) / 1024;

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const counts = { opened: 0, refused: 0, failed: 0 };
const ends = Date.now() + minutes * 60_000;

/**
 * One abandoned session: initialize, initialized, one call, and the id is dropped.
 * @param {number} n
 */
async function abandon(n) {
  const init = await fetch(server.endpoint, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'soak', version: '0' } },
    }),
  });
  await init.text();
  if (init.status === 503) return void counts.refused++;
  const session = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !session) return void counts.failed++;
  const on = { ...headers, 'mcp-protocol-version': LEGACY, 'mcp-session-id': session };
  await (
    await fetch(server.endpoint, {
      method: 'POST',
      headers: on,
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    })
  ).text();
  const call = await fetch(server.endpoint, {
    method: 'POST',
    headers: on,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get', arguments: { table: 'orders', key: (n % 10_000) + 1 } },
    }),
  });
  await call.text();
  if (call.status === 200) counts.opened++;
  else counts.failed++;
}

/** @type {({ minute: number, rss: number } & typeof counts)[]} */
const samples = [];
const sample = () => {
  samples.push({ minute: samples.length + 1, rss: rssMb(), ...counts });
  process.stderr.write(
    `minute ${samples.length}: ${rssMb().toFixed(1)} MB, ${counts.opened} sessions opened and abandoned, ${counts.refused} refused\n`,
  );
};
const sampler = setInterval(sample, 60_000);
let n = 0;
await Promise.all(
  Array.from({ length: Number(o.loops) }, async () => {
    while (Date.now() < ends) await abandon(n++).catch(() => counts.failed++);
  }),
);
clearInterval(sampler);
if (samples.length < minutes) sample();
await server.stop();
rmSync(dir, { recursive: true, force: true });

const first = samples[0];
const last = samples.at(-1);
process.stdout.write(
  `\`node packages/server/bench/sessions-soak.mjs ${process.argv.slice(2).join(' ')}\`\n\n| minute | server RSS MB | sessions opened | refused (503) |\n| ---: | ---: | ---: | ---: |\n` +
    samples
      .map(
        (s) =>
          `| ${s.minute} | ${s.rss.toFixed(1)} | ${s.opened.toLocaleString('en-US')} | ${s.refused.toLocaleString('en-US')} |`,
      )
      .join('\n') +
    `\n\nfailed: ${counts.failed}; growth from minute 1 to minute ${last?.minute}: ${first && last ? (((last.rss - first.rss) / first.rss) * 100).toFixed(1) : '?'}%\n`,
);
