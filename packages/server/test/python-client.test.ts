import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freshDatabase } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  callJson,
  connectClient,
  type Era,
  type HttpServer,
  MODERN_REVISION,
  startHttpServer,
  type TransportKind,
} from './support/mcp.js';
import { loadShop, shopRows } from './support/shop.js';

/**
 * The official Python MCP client (PyPI `mcp`, pinned in clients/requirements.txt and
 * installed by .ci/run into .tools/py) drives the built bin over stdio and Streamable
 * HTTP, in both protocol eras: discovery, then one call of every tool and one refused
 * call (clients/python_client.py). Its answers are checked against the fixture rows and
 * against what the TypeScript SDK client gets for the same calls.
 */
const run = promisify(execFile);
const PYTHON = fileURLToPath(new URL('../../../.tools/py/bin/python', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./clients/python_client.py', import.meta.url));
const REQUIREMENTS = fileURLToPath(new URL('./clients/requirements.txt', import.meta.url));
const PINNED = /^mcp==(\S+)$/m.exec(readFileSync(REQUIREMENTS, 'utf8'))![1]!;

const haveVenv = existsSync(PYTHON);
if (!haveVenv) {
  if (process.env.CI) throw new Error(`CI needs the Python MCP client: ${PYTHON} is missing (see .ci/run)`);
  console.warn(
    `python-client.test.ts skipped: no venv at ${PYTHON}; run .ci/run (or create it from test/clients/requirements.txt)`,
  );
}

const MODES: [TransportKind, Era][] = [
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http', 'legacy'],
  ['http', 'modern'],
];

// biome-ignore lint/suspicious/noExplicitAny: the client's JSON is checked by value
type Json = Record<string, any>;
interface PythonCall {
  tool: string;
  arguments: Json;
  isError: boolean;
  structuredContent: Json | null;
  text: Json | null;
}
interface PythonRun {
  clientVersion: string;
  protocolVersion: string;
  handshake: 'discover' | 'initialize';
  serverName: string | null;
  toolsCapability: boolean;
  tools: { name: string; inputProperties: string[]; hasOutputSchema: boolean; readOnlyHint: boolean | null }[];
  calls: Record<string, PythonCall>;
}

const rows = shopRows();
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const portableInt = (v: unknown) =>
  v === null ? null : BigInt(v as string | number) > MAX_SAFE ? String(v) : Number(v);
const iso = (v: string) => v.replace(/\.?0+Z$/, 'Z');

let dbUrl = '';
let http: HttpServer | undefined;
let reference: Client | undefined;
/** The four client runs, started together (the Python client's start-up dominates). */
const runs = new Map<string, Promise<PythonRun>>();

async function python(kind: TransportKind, era: Era): Promise<PythonRun> {
  const target = kind === 'http' ? ['--url', http!.endpoint] : ['--', process.execPath, BIN, '--url', dbUrl];
  try {
    const { stdout } = await run(PYTHON, [SCRIPT, '--era', era, ...target], {
      timeout: 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as PythonRun;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`python client (${kind} ${era}) failed: ${e.message}\nstdout: ${e.stdout}\nstderr: ${e.stderr}`);
  }
}

describe.skipIf(!haveVenv)('Python MCP client', () => {
  beforeAll(async () => {
    dbUrl = await freshDatabase({ engine: 'sqlite', baseUrl: 'sqlite:' }, 'bench_pyclient');
    await loadShop(dbUrl);
    http = await startHttpServer(dbUrl);
    reference = await connectClient('http', 'modern', { dbUrl, endpoint: http.endpoint });
    for (const [kind, era] of MODES) {
      const pending = python(kind, era);
      pending.catch(() => {}); // awaited (and reported) by its own describe block
      runs.set(`${kind} ${era}`, pending);
    }
  });
  afterAll(async () => {
    await reference?.close();
    await http?.stop();
  });

  describe.each(MODES)('over %s, %s era', (kind, era) => {
    let out: PythonRun;
    beforeAll(async () => {
      out = await runs.get(`${kind} ${era}`)!;
    });

    it(`is the pinned client and negotiates the ${era} era`, () => {
      expect(out.clientVersion).toBe(PINNED);
      // mode "auto" falls back to initialize silently; the handshake shows which one happened.
      if (era === 'modern') expect([out.handshake, out.protocolVersion]).toEqual(['discover', MODERN_REVISION]);
      else expect([out.handshake, out.protocolVersion]).toEqual(['initialize', '2025-11-25']);
      expect(out.serverName).toBe('mcp-db-server');
      expect(out.toolsCapability).toBe(true);
    });

    it('discovers the five read-only tools with output schemas', () => {
      expect(out.tools.map((t) => t.name)).toEqual(['list_tables', 'describe_table', 'query', 'get', 'aggregate']);
      expect(out.tools.every((t) => t.hasOutputSchema && t.readOnlyHint === true)).toBe(true);
      expect(out.tools.find((t) => t.name === 'query')!.inputProperties).toEqual([
        'columns',
        'cursor',
        'filter',
        'limit',
        'order_by',
        'table',
      ]);
    });

    it('reads the fixture rows through every tool', () => {
      const c = out.calls;
      expect(c.list_tables!.structuredContent!.tables.map((t: Json) => [t.name, t.kind, t.rows])).toEqual([
        ['customers', 'table', 24],
        ['order_items', 'table', rows.order_items!.length],
        ['orders', 'table', 90],
        ['paid_orders', 'view', null],
      ]);
      expect(c.describe_orders!.structuredContent!.columns.map((col: Json) => `${col.name}:${col.type}`)).toEqual([
        'id:integer',
        'customer_id:integer',
        'status:text',
        'total:decimal',
        'big:integer',
        'placed_at:timestamp',
        'note:text',
      ]);
      const byCustomer3 = rows.orders!.filter((o) => o.customer_id === 3);
      expect(c.query_page!.structuredContent).toEqual({
        columns: ['id', 'total', 'big', 'placed_at'],
        rows: byCustomer3
          .slice(0, 2)
          .map((o) => ({ id: o.id, total: o.total, big: portableInt(o.big), placed_at: iso(o.placed_at as string) })),
        truncated: byCustomer3.length > 2,
        next_cursor: expect.any(String),
      });
      const customer = rows.customers![1]!;
      expect(c.get_customer!.structuredContent).toEqual({
        found: true,
        row: { ...customer, created_at: iso(customer.created_at as string) },
      });
      expect(c.get_item!.structuredContent).toEqual({
        found: true,
        row: rows.order_items!.find((i) => i.order_id === 5 && i.line_no === 2),
      });
      const counts: Record<string, number> = {};
      for (const o of rows.orders!) counts[o.status as string] = (counts[o.status as string] ?? 0) + 1;
      const grouped = c.aggregate_by_status!.structuredContent!.rows as Json[];
      expect(Object.fromEntries(grouped.map((r) => [r.status, r.n]))).toEqual(counts);
    });

    it('gets a refused call as a tool error naming the problem', () => {
      const bad = out.calls.bad_column!;
      expect(bad.isError).toBe(true);
      expect(bad.text!.error.code).toBe('unknown_column');
      expect(bad.text!.error.message).toContain('custmer_id');
    });

    it('sees exactly what the TypeScript SDK client sees, in structuredContent and text alike', async () => {
      for (const [label, call] of Object.entries(out.calls)) {
        const ts = await callJson(reference!, call.tool, call.arguments);
        expect({ label, isError: call.isError, text: call.text }).toEqual({
          label,
          isError: ts.isError,
          text: ts.data,
        });
        if (!call.isError)
          expect({ label, structured: call.structuredContent }).toEqual({ label, structured: call.text });
      }
    });
  });
});
