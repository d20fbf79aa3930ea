// Established 2025-era clients under a flood of abandoned sessions: `--flooders` loops send
// `initialize` as fast as the server answers (sessions opened and never ended) while real SDK
// clients call a tool every 0.2 s and every 3 s. A client whose session was pushed out gets
// 404 and initializes again; the table is an LRU over every worker, so with fewer than
// --max-sessions sessions opened between two of its calls none should ever get one.
//
//   pnpm build && node packages/server/bench/sessions-flood.mjs [--seconds 30] [--flooders 50]
//     [--clients 4] [--per-connection 16] [--server-args="--workers 2 --max-sessions 2000"]
//     [--bin other/dist/bin.js]
//
// Prints one line: sessions opened by the flood (per second), and 404s per kind of client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { LEGACY, seed, startServer } from './support.mjs';

const { values: o } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    flooders: { type: 'string', default: '50' },
    clients: { type: 'string', default: '4' },
    // each client closes its connection every this many requests (0: never), so that its session
    // moves between the workers as a host's does when its connections are closed or time out
    'per-connection': { type: 'string', default: '0' },
    'server-args': { type: 'string', default: '--workers 2' },
    // another build's dist/bin.js, to compare
    bin: { type: 'string' },
  },
});
const dir = mkdtempSync(join(tmpdir(), 'mcp-sessions-flood-'));
seed(join(dir, 'flood.db'), 1_000);
const server = await startServer(`sqlite:${join(dir, 'flood.db')}`, {
  args: o['server-args'].split(' ').filter(Boolean),
  ...(o.bin ? { bin: o.bin } : {}),
});
const ends = Date.now() + Number(o.seconds) * 1000;
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'flood', version: '0' } },
});
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
let opened = 0;
async function flooder() {
  while (Date.now() < ends) {
    const response = await fetch(server.endpoint, { method: 'POST', headers, body: initialize });
    await response.arrayBuffer();
    if (response.headers.get('mcp-session-id')) opened++;
  }
}

const perConnection = Number(o['per-connection']);
const connect = async () => {
  let sent = 0;
  /** @type {typeof fetch} */
  const moving = (url, init) => {
    const headers = new Headers(init?.headers);
    if (perConnection && ++sent % perConnection === 0) headers.set('connection', 'close');
    return fetch(url, { ...init, headers });
  };
  const client = new Client({ name: 'flood-client', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.endpoint), { fetch: moving }));
  return client;
};
/** @typedef {{ calls: number, notFound: number, failed: number }} Tally */

/**
 * A client calling every `everyMs`; a 404 is answered by initializing again, as hosts do.
 * @param {number} everyMs
 * @param {Tally} tally
 */
async function caller(everyMs, tally) {
  let client = await connect();
  let n = 0;
  while (Date.now() < ends) {
    const result = await client
      .callTool({ name: 'get', arguments: { table: 'orders', key: (n++ % 1000) + 1 } })
      .catch((/** @type {Error} */ error) => error);
    if (result instanceof Error) {
      if (/404|Session not found/.test(result.message)) tally.notFound++;
      else {
        tally.failed++;
        if (tally.failed === 1) process.stderr.write(`${result.message}\n`);
      }
      await client.close().catch(() => {});
      client = await connect();
    } else tally.calls++;
    await sleep(everyMs);
  }
  await client.close();
}

const fast = { calls: 0, notFound: 0, failed: 0 };
const slow = { calls: 0, notFound: 0, failed: 0 };
const clients = Number(o.clients);
await Promise.all([
  ...Array.from({ length: clients }, () => caller(200, fast)),
  ...Array.from({ length: clients }, () => caller(3000, slow)),
  ...Array.from({ length: Number(o.flooders) }, flooder),
]);
await server.stop();
rmSync(dir, { recursive: true, force: true });
const show = (/** @type {Tally} */ t) =>
  `${t.calls} calls, ${t.notFound} × 404${t.failed ? `, ${t.failed} failed` : ''}`;
console.log(
  `${o.bin ? `${o.bin} ` : ''}${o['server-args'] || '(one process)'}${perConnection ? `, ${perConnection} requests a connection` : ''}: ${opened} sessions opened by ${o.flooders} flooders ` +
    `(${Math.round(opened / Number(o.seconds))}/s); ${clients} clients every 0.2 s: ${show(fast)}; ` +
    `${clients} every 3 s: ${show(slow)}`,
);
