// Shared by the stand-alone bench scripts: a seeded SQLite file, the built server as its own
// process, and a minimal JSON-RPC client for either protocol era.
import { readFileSync } from 'node:fs';
import { SERVER_BIN, startServerProcess } from '@mcp-db-bench/server';
import Database from 'better-sqlite3';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
export { SERVER_BIN };

/**
 * customers (n/10) and orders (n), orders.customer_id indexed: point reads and FK filters.
 * @param {string} path
 * @param {number} n
 */
export function seed(path, n) {
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

/**
 * Starts dist/bin.js (or `bin`, e.g. another checkout's build) over HTTP on a free port, with
 * `env` (default: this process's), as one process unless `args` asks for workers: these scripts
 * read one process's memory and profile.
 * @param {string} dbUrl
 * @param {{ nodeArgs?: string[], args?: string[], bin?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export async function startServer(dbUrl, { nodeArgs = [], args = [], bin = SERVER_BIN, env = process.env } = {}) {
  const workers = args.some((a) => a.startsWith('--workers')) ? [] : ['--workers', '1'];
  return startServerProcess(['--url', dbUrl, '--http', '--port', '0', ...workers, ...args], { bin, nodeArgs, env });
}

/**
 * A JSON-RPC answer as these scripts read it: whatever the server sent.
 * @typedef {{ result?: any, error?: { code: number, message: string } }} Answer
 */

/**
 * Minimal JSON-RPC over HTTP for either era, reading JSON or single-event SSE answers.
 * @param {string} endpoint
 * @param {string | undefined} era `modern`, or anything else for the 2025 era
 */
export function client(endpoint, era) {
  let id = 0;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const version = era === 'modern' ? MODERN : LEGACY;
  /**
   * @param {object} body
   * @param {string} method
   * @param {string} [name]
   * @returns {Promise<Answer>}
   */
  async function post(body, method, name) {
    /** @type {Record<string, string>} */
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
    };
    if (era === 'modern') Object.assign(headers, { 'mcp-method': method }, name ? { 'mcp-name': name } : {});
    const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (!text) return {};
    const json =
      text.startsWith('event:') || text.startsWith('data:')
        ? (text
            .split('\n')
            .find((l) => l.startsWith('data:'))
            ?.slice(5) ?? '')
        : text;
    return JSON.parse(json);
  }
  return {
    async open() {
      if (era === 'modern') return;
      await post(
        {
          jsonrpc: '2.0',
          id: ++id,
          method: 'initialize',
          params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
        },
        'initialize',
      );
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'notifications/initialized');
    },
    /**
     * @param {string} method
     * @param {Record<string, unknown>} params
     * @param {string} [name]
     */
    request(method, params, name) {
      const p = era === 'modern' ? { ...params, _meta: meta } : params;
      return post({ jsonrpc: '2.0', id: ++id, method, params: p }, method, name);
    },
  };
}

/**
 * A deterministic key stream in 1..n.
 * @param {number} n
 */
export function keys(n, state = 42) {
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return (state % n) + 1;
  };
}

/**
 * A process's CPU time so far, in seconds (Linux: /proc, in clock ticks of 1/100 s).
 * @param {number | undefined} pid
 */
export function cpuSeconds(pid) {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * A V8 CPU profile (`--cpu-prof`), as far as profile.mjs and otel-profile.mjs read it.
 * @typedef {{ functionName: string, url: string, lineNumber: number }} CallFrame
 * @typedef {{ id: number, callFrame: CallFrame, children?: number[] }} ProfileNode
 * @typedef {{ nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number }} Profile
 */
