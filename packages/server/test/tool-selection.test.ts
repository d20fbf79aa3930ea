import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqlite } from '@mcp-db-bench/engines';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { leanSchema } from '../src/schemas.js';
import { instructions } from '../src/server.js';
import { customTools } from '../src/tools/custom.js';
import { selectTools, TOOL_SETS, toolsFor } from '../src/tools/index.js';
import { BIN, callJson, connectClient } from './support/mcp.js';

/**
 * `--tools` serves a subset; every input schema is advertised lean (no guard bounds) while the
 * full one still validates; the instructions name only the tools served, and hold the filter
 * grammar the tools' descriptions point to.
 */
let dir = '';
let dbUrl = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-tools-'));
  const db = new Database(join(dir, 'shop.db'));
  db.exec(
    "create table orders (id integer primary key, status text not null); insert into orders values (1, 'paid'), (2, 'shipped');",
  );
  db.close();
  dbUrl = `sqlite:${join(dir, 'shop.db')}`;
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

describe('selectTools', () => {
  const everything = toolsFor({ allowWrites: true, sql: true, echo: true });

  it('expands sets and names, in the order the server lists them', () => {
    expect(names(selectTools(everything, 'minimal'))).toEqual(['list_tables', 'describe_table', 'query']);
    expect(names(selectTools(everything, 'get, minimal'))).toEqual(['list_tables', 'describe_table', 'query', 'get']);
    expect(names(selectTools(everything, 'read,write'))).toEqual([
      ...names(TOOL_SETS.read!),
      ...names(TOOL_SETS.write!),
    ]);
    expect(names(selectTools(toolsFor({}), 'all'))).toEqual(names(TOOL_SETS.read!));
  });

  it('names the flag a tool needs, and the tools and sets there are', () => {
    expect(() => selectTools(toolsFor({}), 'read,insert')).toThrow('--tools: insert needs --allow-writes');
    expect(() => selectTools(toolsFor({}), 'sql')).toThrow('--tools: sql needs --sql');
    expect(() => selectTools(everything, 'quer')).toThrow(
      /no tool or set named quer \(tools: list_tables, .*; sets: read, minimal, write, all, custom\)/,
    );
    expect(() => selectTools(toolsFor({}), 'write')).toThrow(
      '--tools "write" selects no tool: its tools need --allow-writes',
    );
  });

  it("takes the config file's custom tools by name, as the set custom, and in all", () => {
    const file = fileURLToPath(new URL('../../../docs/examples/shop.yaml', import.meta.url));
    const { tools } = loadConfig(file, { SHOP_DB_URL: 'sqlite:shop.db' });
    const custom = customTools('shop.yaml', tools, [sqlite], false);
    expect(names(toolsFor({ tools: 'get,orders_by_status' }, custom))).toEqual(['get', 'orders_by_status']);
    expect(names(toolsFor({ tools: 'custom' }, custom))).toEqual(['top_customers', 'orders_by_status']);
    expect(names(toolsFor({ tools: 'all' }, custom))).toEqual([...names(TOOL_SETS.read!), ...names(custom)]);
    expect(() => toolsFor({ tools: 'top_customer' }, custom)).toThrow(/tools: .*, top_customers, orders_by_status;/);
    // The instructions name them first; alone, they are all there is to say (no filters).
    expect(instructions(toolsFor({ tools: 'custom' }, custom))).toBe(
      'Read-only access to one relational database. Tools made for this database: top_customers, orders_by_status. ' +
        'Values come back portable: big integers and decimals as strings, timestamps as ISO-8601 UTC.',
    );
    expect(instructions(toolsFor({ tools: 'minimal,custom' }, custom))).toMatch(
      /^Read-only access to one relational database\. Tools made for this database: top_customers, orders_by_status\. Use list_tables, then describe_table, then query\. Filters:/,
    );
  });
});

describe('instructions', () => {
  it('name only the tools served, and give the filter grammar when a served tool filters', () => {
    const minimal = instructions(selectTools(toolsFor({}), 'minimal'));
    expect(minimal).toMatch(
      /^Read-only access to one relational database\. Use list_tables, then describe_table, then query\. Filters: /,
    );
    expect(minimal).not.toMatch(/\bget\b|aggregate|insert/);
    const writes = instructions(toolsFor({ allowWrites: true }));
    expect(writes).toMatch(/^Read and write access .* change data with insert, update, delete, transact \(transact: /);
    expect(instructions(selectTools(toolsFor({}), 'list_tables,describe_table'))).not.toMatch(/Filters:/);
  });
});

describe('leanSchema', () => {
  it('drops the guard bounds at any depth, keeps properties named like them, and writes an anyOf of bare types as a type list', () => {
    const lean = leanSchema({
      type: 'object',
      properties: {
        maxLength: { type: 'string', maxLength: 5 },
        list: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', minLength: 1 } },
        map: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
        limit: { type: 'integer', minimum: 1, maximum: 10 },
        n: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        filter: {
          anyOf: [
            { type: 'string', maxLength: 8 },
            { type: 'object', additionalProperties: {} },
          ],
          description: 'f',
        },
        key: { anyOf: [{ type: ['string', 'number'] }, { type: 'object', additionalProperties: { type: 'string' } }] },
        as: { type: 'string', pattern: '^[a-z]+$' },
      },
    });
    expect(lean).toEqual({
      type: 'object',
      properties: {
        maxLength: { type: 'string' },
        list: { type: 'array', items: { type: 'string' } },
        map: { type: 'object' },
        limit: { type: 'integer', minimum: 1 },
        n: { type: 'integer' },
        filter: { type: ['string', 'object'], description: 'f' },
        key: { anyOf: [{ type: ['string', 'number'] }, { type: 'object', additionalProperties: { type: 'string' } }] },
        as: { type: 'string' },
      },
    });
  });
});

describe('mcp-db-server --tools, through a real client', () => {
  it('lists only the tools asked for, advertises lean schemas, and still refuses what the full schema refuses', async () => {
    const client = await connectClient('stdio', 'legacy', { dbUrl, args: ['--tools', 'minimal'] });
    try {
      const { tools } = await client.listTools();
      expect(names(tools)).toEqual(['list_tables', 'describe_table', 'query']);
      const query = tools.find((t) => t.name === 'query')!;
      expect(JSON.stringify(query.inputSchema)).not.toMatch(/maxLength|maxItems|propertyNames/);
      expect(client.getInstructions()).toMatch(/Use list_tables, then describe_table, then query\./);
      const long = await callJson(client, 'query', { table: 'x'.repeat(300) });
      expect(long).toMatchObject({ isError: true, data: { error: { code: 'invalid_argument' } } });
      expect(JSON.stringify(long)).toMatch(/table: Too big: expected string to have <=256 characters/);
      expect(await callJson(client, 'query', { table: 'orders', filter: "status = 'paid'" })).toMatchObject({
        isError: false,
        data: { rows: [{ id: 1 }] },
      });
    } finally {
      await client.close();
    }
  });

  it('exits 2 on a tool its flags do not register, before opening the database', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, '--url', 'postgres://nobody@127.0.0.1:1/none', '--tools', 'read,delete'],
        (_e, _out, stderr) => resolve({ code: child.exitCode, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--tools: delete needs --allow-writes/);
  });
});
