import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '../src/transports/ready.js';

/**
 * The built bin driven by the official MCP Inspector CLI (v2, installed as a
 * devDependency: never fetched with npx), exactly as a user would in a shell:
 *
 *   npx @modelcontextprotocol/inspector --cli --format json --method tools/list -- node dist/bin.js --url sqlite:shop.db
 *   npx @modelcontextprotocol/inspector --cli --format json --transport http http://127.0.0.1:PORT/mcp --method tools/list
 *
 * over stdio and Streamable HTTP, in both protocol eras the Inspector can negotiate
 * (--protocol-era legacy = 2025-11-25 initialize handshake, the default for ad-hoc
 * targets; --protocol-era modern = stateless 2026-07-28).
 *
 * Needs only dist/bin.js (the test run builds it first) and better-sqlite3.
 */

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const require = createRequire(import.meta.url);

/** The Inspector's launcher script (its `mcp-inspector` bin), run with this very node. */
function inspectorLauncher(): string {
  const pkgJson = require.resolve('@modelcontextprotocol/inspector/package.json');
  const pkg = require(pkgJson) as { bin: Record<string, string> };
  return join(dirname(pkgJson), pkg.bin['mcp-inspector']!);
}

type Era = 'default' | 'legacy' | 'modern';
type Kind = 'stdio' | 'http';

interface Customer {
  id: number;
  name: string;
  email: string | null;
}
interface Order {
  id: number;
  customer_id: number;
  status: string;
  total_cents: number;
  note: string | null;
}

const CUSTOMERS: Customer[] = [
  { id: 1, name: 'Ada', email: 'ada@example.com' },
  { id: 2, name: 'Bob', email: null },
  { id: 3, name: 'Chen', email: 'chen@example.com' },
  { id: 4, name: 'Zoë', email: 'zoe@example.com' },
];
// Inserted out of key order on purpose: the server must return them by primary key.
const ORDERS: Order[] = [
  { id: 7, customer_id: 3, status: 'shipped', total_cents: 1250, note: null },
  { id: 1, customer_id: 1, status: 'paid', total_cents: 999, note: 'first' },
  { id: 3, customer_id: 3, status: 'paid', total_cents: 4200, note: "O'Brien's gift" },
  { id: 2, customer_id: 2, status: 'pending', total_cents: 15, note: null },
  { id: 5, customer_id: 4, status: 'cancelled', total_cents: 0, note: '' },
  { id: 4, customer_id: 3, status: 'pending', total_cents: 75, note: 'ünïcödé 🎉' },
  { id: 6, customer_id: 1, status: 'paid', total_cents: 31, note: null },
];
const EXPECTED_ROWS = ORDERS.filter((o) => o.customer_id === 3).sort((a, b) => a.id - b.id);

const TOOLS = ['aggregate', 'describe_table', 'get', 'list_tables', 'query'];

let dir = '';
let dbUrl = '';
let launcher = '';
let http: { endpoint: string; child: ChildProcess } | undefined;

function createShop(path: string): void {
  const db = new Database(path);
  try {
    db.exec(`
      create table customers (
        id integer primary key,
        name text not null,
        email text
      );
      create table orders (
        id integer primary key,
        customer_id integer not null references customers (id),
        status text not null,
        total_cents integer not null,
        note text
      );
      create index ix_orders_customer_id on orders (customer_id);
    `);
    const insertCustomer = db.prepare('insert into customers (id, name, email) values (@id, @name, @email)');
    const insertOrder = db.prepare(
      'insert into orders (id, customer_id, status, total_cents, note) values (@id, @customer_id, @status, @total_cents, @note)',
    );
    db.transaction(() => {
      for (const c of CUSTOMERS) insertCustomer.run(c);
      for (const o of ORDERS) insertOrder.run(o);
    })();
  } finally {
    db.close();
  }
}

/** Starts `mcp-db-server --http --port 0` and reads the endpoint from its ready line. */
async function startHttp(): Promise<{ endpoint: string; child: ChildProcess }> {
  const server = await startServerProcess(['--url', dbUrl, '--http', '--port', '0'], { bin: BIN });
  return { endpoint: server.endpoint, child: server.child };
}

function stopHttp(): Promise<void> {
  const child = http?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The connection part of an inspector command line. */
function target(kind: Kind, era: Era): { before: string[]; after: string[] } {
  const eraFlag = era === 'default' ? [] : ['--protocol-era', era];
  if (kind === 'stdio') {
    // Everything after `--` is the server command, passed through untouched.
    return { before: eraFlag, after: ['--', process.execPath, BIN, '--url', dbUrl] };
  }
  return { before: [...eraFlag, '--transport', 'http', http!.endpoint], after: [] };
}

// biome-ignore lint/suspicious/noExplicitAny: the inspector's JSON output is checked by value
type Json = Record<string, any>;

/** Runs `mcp-inspector --cli --format json ...` and parses its one JSON object on stdout. */
async function inspector(args: string[]): Promise<Json> {
  const argv = [launcher, '--cli', '--format', 'json', ...args];
  try {
    const { stdout } = await run(process.execPath, argv, {
      timeout: 45_000,
      maxBuffer: 16 * 1024 * 1024,
      // Keep the inspector's ~/.mcp-inspector out of the real home directory.
      env: {
        ...process.env,
        HOME: dir,
        USERPROFILE: dir,
        MCP_STORAGE_DIR: join(dir, 'inspector-storage'),
        NO_COLOR: '1',
      },
    });
    return JSON.parse(stdout) as Json;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string; code?: unknown };
    throw new Error(
      `inspector ${args.join(' ')} failed (${e.code}): ${e.message}\nstdout: ${e.stdout}\nstderr: ${e.stderr}`,
    );
  }
}

beforeAll(async () => {
  if (!existsSync(BIN))
    throw new Error(`${BIN} is missing: build the server first (pnpm --filter @mcp-db-bench/server build)`);
  launcher = inspectorLauncher();
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-inspector-'));
  const file = join(dir, 'shop.db');
  createShop(file);
  dbUrl = `sqlite:${file}`;
  http = await startHttp();
});

afterAll(async () => {
  await stopHttp();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const MODES: [Kind, Era][] = [
  ['stdio', 'default'],
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http', 'default'],
  ['http', 'legacy'],
  ['http', 'modern'],
];

describe.each(MODES)('inspector CLI over %s, protocol era %s', (kind, era) => {
  it('lists the five tools', { timeout: 60_000 }, async () => {
    const { before, after } = target(kind, era);
    const out = await inspector([...before, '--method', 'tools/list', ...after]);
    const tools = out.result.tools as { name: string; inputSchema: Json }[];
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const query = tools.find((t) => t.name === 'query')!;
    expect(Object.keys(query.inputSchema.properties)).toEqual(
      expect.arrayContaining(['table', 'columns', 'filter', 'order_by', 'limit', 'cursor']),
    );
  });

  it('calls query with filter "customer_id = 3"', { timeout: 60_000 }, async () => {
    const { before, after } = target(kind, era);
    const out = await inspector([
      ...before,
      '--method',
      'tools/call',
      '--tool-name',
      'query',
      '--tool-arg',
      'table=orders',
      '--tool-arg',
      'filter=customer_id = 3',
      ...after,
    ]);
    const result = out.result as Json;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({
      columns: ['id', 'customer_id', 'status', 'total_cents', 'note'],
      rows: EXPECTED_ROWS,
      truncated: false,
      next_cursor: null,
    });
    // The text block carries the same JSON, for clients that ignore structuredContent.
    const text = (result.content as { type: string; text: string }[]).find((c) => c.type === 'text')!.text;
    expect(JSON.parse(text)).toEqual(result.structuredContent);
    // The era actually negotiated shows in the result: 2026-07-28 responses carry serverInfo in _meta.
    const serverInfo = result._meta?.['io.modelcontextprotocol/serverInfo'];
    if (era === 'modern') expect(serverInfo?.name).toBe('mcp-db-server');
    else expect(serverInfo).toBeUndefined();
  });
});

describe('inspector CLI --tool-args-json', () => {
  it('passes the arguments verbatim (stdio, modern)', { timeout: 60_000 }, async () => {
    const { before, after } = target('stdio', 'modern');
    const out = await inspector([
      ...before,
      '--method',
      'tools/call',
      '--tool-name',
      'query',
      '--tool-args-json',
      JSON.stringify({ table: 'orders', filter: 'customer_id = 3', columns: ['id', 'status'], limit: 2 }),
      ...after,
    ]);
    expect(out.result.structuredContent).toEqual({
      columns: ['id', 'status'],
      rows: EXPECTED_ROWS.slice(0, 2).map(({ id, status }) => ({ id, status })),
      truncated: true,
      next_cursor: expect.any(String),
    });
  });
});
