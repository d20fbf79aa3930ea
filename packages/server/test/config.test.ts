import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ENGINES, engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { engineOf, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { configJsonSchema, configSchema, sqlConfigSchema } from '../src/config/schema.js';
import { buildCli } from '../src/options.js';
import { customTools } from '../src/tools/custom.js';
import { startServerProcess } from '../src/transports/ready.js';
import { BIN, callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop, shopRows } from './support/shop.js';

/**
 * The config file (--config, YAML): the docs' example as the server reads it, precedence (flag >
 * variable > file > default), mistakes named by file, line and key, and custom tools served over
 * HTTP to our SDK client and the Python one, read-only by the database's own enforcement, cut off by
 * the statement timeout, and writing only on a server that allows writes.
 */
const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/shop.yaml', import.meta.url));
/** Custom tools for the suites' shop fixture (the docs' example is for the benchmark dataset: apps/cli/test/config-example.test.ts). */
const SHOP_TOOLS = fileURLToPath(new URL('./fixtures/shop-tools.yaml', import.meta.url));
const SCHEMA_FILE = fileURLToPath(new URL('../config.schema.json', import.meta.url));
const PYTHON = fileURLToPath(new URL('../../../.tools/py/bin/python', import.meta.url));
const PY_SCRIPT = fileURLToPath(new URL('./clients/python_client.py', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'mcp-db-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** Writes a config file into the test's directory and returns its path. */
function configFile(text: string): string {
  const file = join(dir, `config-${++files}.yaml`);
  writeFileSync(file, text);
  return file;
}

/** The message a ConfigError carries for a file, with the file's path shortened to `FILE`. */
function mistakes(file: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    loadConfig(file, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message.split('\n').map((line) => line.replace(file, 'FILE'));
  }
  throw new Error('no ConfigError');
}

describe('loading a config file', () => {
  it('publishes the JSON Schema the zod schema makes (pnpm --filter @mcp-db-bench/server config-schema rewrites it)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(configJsonSchema());
  });

  it('has a key for every option a flag sets', () => {
    // --config itself, the version, the tests' hidden delay and the other bin's spellings (--db, --stdio)
    // are not options of their own; --tools is selectTools.
    const flags = buildCli()
      .options.map((o) => o.attributeName())
      .filter((name) => !['config', 'version', 'testDelayMs', 'db', 'stdio'].includes(name))
      .map((name) => (name === 'tools' ? 'selectTools' : name));
    // the sql tool's own settings (--sql-pool-size ...) are keys of the `sql:` map (sql.poolSize ...),
    // and --sql-allow-function's list is sql.allowFunctions
    const keys = [
      ...Object.keys(configSchema.shape),
      ...Object.keys(sqlConfigSchema.shape).map((k) =>
        k === 'allowFunctions' ? 'sqlAllowFunction' : `sql${k[0]!.toUpperCase()}${k.slice(1)}`,
      ),
    ];
    expect(keys.filter((k) => !['databases', 'tools'].includes(k)).sort()).toEqual(flags.sort());
  });

  it('is the example docs/server.md shows', () => {
    const docs = readFileSync(fileURLToPath(new URL('../../../docs/server.md', import.meta.url)), 'utf8');
    expect(docs).toContain(`\`\`\`yaml\n${readFileSync(EXAMPLE, 'utf8')}\`\`\``);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
  it("reads the docs' example, with ${VAR} from the environment", () => {
    const config = loadConfig(EXAMPLE, { SHOP_DB_URL: 'sqlite:shop.db' });
    expect(config.urls).toEqual(['sqlite:shop.db']);
    expect(config.options).toEqual({ maxRows: 500, statementTimeout: 5000, tools: 'minimal,custom' });
    expect(Object.keys(config.tools)).toEqual(['top_customers', 'orders_by_status']);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
    expect(mistakes(EXAMPLE)).toEqual(['FILE:6: url: ${SHOP_DB_URL} is not set in the environment']);
  });

  it('names the file, the line and the key of every mistake', () => {
    const file = configFile(
      [
        'url: sqlite:shop.db', // 1
        'maxRow: 5', // 2
        'port: "80"', // 3
        'workers: none', // 4
        'tools:', // 5
        '  top_customers:', // 6
        '    description: Best customers', // 7
        '    sql: select * from customers where country = :country', // 8
        '    parameters:', // 9
        '      country:', // 10
        '        type: text', // 11
        '  orders:', // 12
        '    sql: {sqlite: select 1, oracle: select 1 from dual}', // 13
      ].join('\n'),
    );
    expect(mistakes(file)).toEqual([
      'FILE:2: maxRow: unknown key',
      'FILE:3: port: Invalid input: expected number, received string',
      'FILE:4: workers: expected auto or a whole number, 1 or more',
      'FILE:11: tools.top_customers.parameters.country.type: expected one of string, integer, number, boolean',
      'FILE:12: tools.orders.description: Invalid input: expected string, received undefined',
      'FILE:13: tools.orders.sql.oracle: unknown key',
    ]);
  });

  it('says what an option that takes auto or a number takes', () => {
    expect(mistakes(configFile('url: sqlite:shop.db\nbusyPoll: fast\nworkers: 0\n'))).toEqual([
      'FILE:2: busyPoll: expected auto or a whole number of µs, 0 or more',
      'FILE:3: workers: Too small: expected number to be >=1',
    ]);
    expect(() => loadConfig(configFile('url: sqlite:shop.db\nbusyPoll: auto\nworkers: auto\n'), {})).not.toThrow();
  });

  it('checks each custom tool against its SQL and the built-in names', () => {
    const file = configFile(
      [
        'tools:',
        '  query:',
        '    description: shadows the built-in',
        '    sql: select 1',
        '  by_id:',
        '    description: One customer',
        '    sql: select * from customers where id = :id and name = :name',
        '    parameters:',
        '      id: {type: integer, default: "5"}',
        '      unused: {type: string, required: false}',
      ].join('\n'),
    );
    expect(mistakes(file)).toEqual([
      'FILE:2: tools.query: query is a built-in tool or set name',
      'FILE:7: tools.by_id.sql: :name is not in parameters',
      "FILE:9: tools.by_id.parameters.id.default: expected a value of the parameter's type, integer",
      'FILE:10: tools.by_id.parameters.unused: not used in the SQL',
    ]);
  });

  it('reads several databases as --url values, refuses a bad database name, and YAML that does not parse', () => {
    expect(loadConfig(configFile('url: sqlite:a.db\n')).urls).toEqual(['sqlite:a.db']);
    expect(loadConfig(configFile('databases:\n  shop: sqlite:b.db\n  crm: postgres://h/crm\n')).urls).toEqual([
      'shop=sqlite:b.db',
      'crm=postgres://h/crm',
    ]);
    expect(mistakes(configFile('databases:\n  Shop: sqlite:b.db\n'))).toEqual([
      expect.stringMatching(/^FILE:2: databases.Shop: /),
    ]);
    expect(mistakes(configFile('maxRows: 5\nmaxRows: 6\n'))).toEqual([
      expect.stringMatching(/^FILE:2: Map keys must be unique/),
    ]);
  });

  it('refuses at start a tool the engine cannot serve as written', () => {
    const tools = loadConfig(EXAMPLE, { SHOP_DB_URL: 'sqlite:shop.db' }).tools;
    const mssql = ENGINES.find((e) => e.name === 'mssql')!;
    expect(() => customTools('shop.yaml', tools, [mssql], true)).toThrow(
      'shop.yaml: tools.top_customers: SQL Server has no read-only transaction to run a read-only tool in',
    );
    const { orders_by_status } = tools;
    expect(() => customTools('shop.yaml', { orders_by_status: orders_by_status! }, [mssql], true)).toThrow(
      'shop.yaml: tools.orders_by_status.sql: no statement for mssql (the file has sqlite, postgres, mysql)',
    );
  });
});

describe('precedence: flag > variable > file > default', () => {
  let dbUrl = '';
  beforeAll(async () => {
    dbUrl = await freshDatabase({ engine: 'sqlite', baseUrl: 'sqlite:' }, 'bench_config_precedence');
    await loadShop(dbUrl);
  });

  /** Starts the bin over stdio with stdin closed: it logs its start-up line and stops. */
  function start(args: string[], env: Record<string, string> = {}) {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MCP_DB_')));
    const run = spawnSync(process.execPath, [BIN, ...args], {
      input: '',
      env: { ...clean, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { status: run.status, stderr: run.stderr };
  }

  it('takes the statement timeout and the database from wherever is strongest', () => {
    const file = configFile(`url: ${dbUrl}\nstatementTimeout: 5000\n`);
    const timeout = (args: string[], env?: Record<string, string>) =>
      /statement timeout (\w+)/.exec(start(args, env).stderr)?.[1];
    expect(timeout(['--statement-timeout', '123'])).toBe(undefined); // no database: no start
    expect(timeout(['--url', dbUrl])).toBe('30000'); // the default
    expect(timeout(['--config', file])).toBe('5000');
    expect(timeout([], { MCP_DB_CONFIG: file })).toBe('5000');
    expect(timeout(['--config', file], { MCP_DB_STATEMENT_TIMEOUT: '4000' })).toBe('4000');
    expect(timeout(['--config', file, '--statement-timeout', '3000'], { MCP_DB_STATEMENT_TIMEOUT: '4000' })).toBe(
      '3000',
    );
    // The file's database beats DATABASE_URL, the generic fallback; --url beats the file.
    const missing = join(dir, 'missing.db');
    expect(start(['--config', file], { DATABASE_URL: `sqlite:${missing}` }).status).toBe(0);
    expect(start(['--config', file, '--url', `sqlite:${missing}`]).stderr).toContain('no such file');
  });

  it("serves HTTP with the file's workers, which the primary reads before forking", async () => {
    const file = configFile(`url: ${dbUrl}\nhttp: true\nport: 0\nworkers: 2\n`);
    const server = await startServerProcess(['--config', file], { bin: BIN });
    try {
      expect(server.stderr()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/mcp \(2 worker processes\)/);
      const client = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
      expect((await callJson(client, 'get', { table: 'customers', key: 1 })).data).toMatchObject({ found: true });
      await client.close();
    } finally {
      await server.stop();
    }
  }, 30_000);

  it('exits 2 naming the file, the line and the key', () => {
    const file = configFile(`url: ${dbUrl}\n\nmaxRows: many\n`);
    const run = start(['--config', file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`${file}:3: maxRows: Invalid input: expected number, received string`);
  });

  it('refuses a writing tool on a read-only server before it connects', () => {
    const file = configFile(
      stringify({
        url: dbUrl,
        tools: { add_note: { description: 'Adds a note', sql: 'delete from orders', readOnly: false } },
      }),
    );
    const run = start(['--config', file]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      `${file}: tools.add_note writes (readOnly: false) and the server is read-only: start it with --allow-writes`,
    );
    expect(start(['--config', file, '--allow-writes']).status).toBe(0);
  });
});

/** What a read-only tool that writes gets, by family: the database's refusal, never ours. */
const SNEAKY: Record<string, { sql: string; code: string; atStart?: string }> = {
  // PostgreSQL: the read-only transaction refuses even a sequence's next value (25006).
  postgres: { sql: "select nextval('notes_id_seq') as id", code: 'read_only' },
  // MariaDB/MySQL: the read-only transaction refuses the insert (1792), even to explain it, so at start.
  mysql: {
    sql: "insert into notes (customer_id, body) values (1, 'sneaky')",
    code: 'read_only',
    atStart: 'refuses the statement: Cannot execute statement in a READ ONLY transaction',
  },
  // SQLite: the statement runs inside `select * from (...)` in a read-only process; its parser refuses an insert
  // there, which the start-up check finds by running it so, for no row.
  sqlite: {
    sql: "insert into notes (customer_id, body) values (1, 'sneaky')",
    code: 'database_error',
    atStart: 'cannot run the statement read-only: near "insert": syntax error. A read-only tool runs one query',
  },
};

const TIMEOUT_MS = 1000;
// One process at a time (PGlite) cannot be checked from beside the server; PostgreSQL covers its family.
const targets = liveTargets().filter(
  (t) => engineOf(t).readOnlyStatement && SNEAKY[engineOf(t).family] && !engineOf(t).oneProcess,
);

describe.each(targets)('custom tools on $engine', (target) => {
  let dbUrl = '';
  let example: HttpServer | undefined;
  let client: Client | undefined;
  const rows = shopRows();

  const notes = async () => {
    const { db, close } = await engineForUrl(dbUrl).connect(dbUrl, { poolSize: 1 });
    try {
      return Number((await sql<{ n: unknown }>`select count(*) as n from notes`.execute(db)).rows[0]!.n);
    } finally {
      await close();
    }
  };

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_config');
    await loadShop(dbUrl);
    const engine = engineForUrl(dbUrl);
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1 });
    await sql.raw(testFactsOf(engine).notesTable).execute(db);
    await close();
    // The file names the database through ${SHOP_DB_URL}.
    example = await startHttpServer(dbUrl, ['--config', SHOP_TOOLS], { SHOP_DB_URL: dbUrl });
    client = await connectClient('http', 'modern', { dbUrl, endpoint: example.endpoint });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await example?.stop();
  });

  it("serves the file's selection, and each custom tool with its parameters and rows", async () => {
    const { tools } = await client!.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'list_tables',
      'describe_table',
      'query',
      'top_customers',
      'orders_by_status',
    ]);
    const top = tools.find((t) => t.name === 'top_customers')!;
    expect(top.title).toBe('Top customers by spending');
    expect(top.annotations?.readOnlyHint).toBe(true);
    expect(top.inputSchema.properties).toMatchObject({
      n: { type: 'integer', description: 'how many customers', default: 5 },
      vip_only: { type: 'boolean', description: 'only VIP customers', default: false },
    });
    expect(Object.keys(top.outputSchema!.properties!)).toEqual(['columns', 'rows', 'truncated']);
  });

  it('stops at start (exit 2) on a statement the database refuses, naming file, line, tool and database', () => {
    const file = configFile(
      [
        `url: ${dbUrl}`,
        'tools:',
        '  good:',
        '    description: Customers',
        '    sql: select id, name from customers where id = :id',
        '    parameters: { id: { type: integer } }',
        '  bad:',
        '    description: A column the table does not have',
        '    sql: select c.id, c.nickname from customers c limit :n',
        '    parameters: { n: { type: integer, default: 5 } }',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [BIN, '--config', file], { input: '', encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(2);
    const engine = engineForUrl(dbUrl);
    const line = run.stderr.split('\n').find((l) => l.startsWith('error: '));
    expect(line).toMatch(
      new RegExp(
        `^error: ${file.replace(/[.*+?^$()|[\]\\]/g, '\\$&')}:9: tools\\.bad\\.sql: ${engine.title} refuses the statement: .*nickname`,
      ),
    );
    // the other tool, and the shop fixture's own tools, pass the same check (the server above started)
    expect(run.stderr).not.toContain('tools.good');
  });

  /** The example's top_customers, computed from the fixture rows. */
  function expectedTop(n: number, vipOnly: boolean) {
    const vip = new Map(rows.customers!.map((c) => [c.id, c.vip]));
    const spent = new Map<number, { orders: number; spent: number }>();
    for (const o of rows.orders!) {
      if (!['paid', 'shipped'].includes(o.status as string) || (vipOnly && !vip.get(o.customer_id))) continue;
      const s = spent.get(o.customer_id as number) ?? { orders: 0, spent: 0 };
      spent.set(o.customer_id as number, { orders: s.orders + 1, spent: s.spent + Number(o.total) });
    }
    return [...spent]
      .sort(([a, x], [b, y]) => Math.round((y.spent - x.spent) * 100) || a - b)
      .slice(0, n)
      .map(([id, s]) => ({ id, orders: s.orders, spent: s.spent.toFixed(2) }));
  }
  const portable = (got: Record<string, unknown>[]) =>
    got.map((r) => ({ id: Number(r.id), orders: Number(r.orders), spent: Number(r.spent).toFixed(2) }));

  it('answers the example tools from the database, defaults included', async () => {
    const byDefault = await callJson(client!, 'top_customers', {});
    expect(byDefault.isError, JSON.stringify(byDefault.data)).toBe(false);
    expect(byDefault.data.columns).toEqual(['id', 'name', 'orders', 'spent']);
    expect(portable(byDefault.data.rows as never)).toEqual(expectedTop(5, false));
    const vips = await callJson(client!, 'top_customers', { n: 3, vip_only: true });
    expect(portable(vips.data.rows as never)).toEqual(expectedTop(3, true));

    const paid = await callJson(client!, 'orders_by_status', { status: 'paid' });
    const want = rows
      .orders!.filter((o) => o.status === 'paid')
      .sort((a, b) => String(b.placed_at).localeCompare(String(a.placed_at)) || (a.id as number) - (b.id as number))
      .slice(0, 20)
      .map((o) => o.id);
    expect((paid.data.rows as { id: unknown }[]).map((r) => Number(r.id))).toEqual(want);
    expect(paid.data.truncated).toBe(false);

    const bad = await callJson(client!, 'orders_by_status', { status: 3 });
    expect(bad.isError).toBe(true);
    expect(bad.data).toMatchObject({ error: { code: 'invalid_argument' } });
    expect(JSON.stringify(bad.data)).toContain('status');
  });

  it("renders a table's columns as the structured tools do: the same values on every engine", async () => {
    const paid = await callJson(client!, 'orders_by_status', { status: 'paid' });
    const rows = paid.data.rows as { id: number }[];
    expect(rows.length).toBeGreaterThan(1);
    const ids = rows.map((r) => r.id);
    const query = await callJson(client!, 'query', {
      table: 'orders',
      columns: ['id', 'customer_id', 'total', 'placed_at'],
      filter: `id in (${ids.join(', ')})`,
      limit: ids.length,
    });
    expect(query.isError, JSON.stringify(query.data)).toBe(false);
    const byId = new Map((query.data.rows as { id: number }[]).map((r) => [r.id, r]));
    // a decimal with its scale as a string, a timestamp in ISO-8601 UTC: what `query` answers
    expect(rows).toEqual(ids.map((id) => byId.get(id)));
    expect(typeof (rows[0] as unknown as { total: unknown }).total).toBe('string');
  });

  it.skipIf(target.engine !== 'sqlite' || !existsSync(PYTHON))(
    'answers the Python MCP client as it answers ours',
    async () => {
      const { stdout } = await promisify(execFile)(
        PYTHON,
        [PY_SCRIPT, '--era', 'modern', '--url', example!.endpoint, '--call', 'top_customers', '{"n": 3}'],
        { timeout: 60_000 },
      );
      const out = JSON.parse(stdout) as {
        tools: { name: string; inputProperties: string[]; hasOutputSchema: boolean }[];
        calls: Record<string, { isError: boolean; structuredContent: unknown }>;
      };
      expect(out.tools.find((t) => t.name === 'top_customers')).toMatchObject({
        inputProperties: ['n', 'vip_only'],
        hasOutputSchema: true,
      });
      const ours = await callJson(client!, 'top_customers', { n: 3 });
      expect(out.calls.top_customers).toEqual({
        tool: 'top_customers',
        arguments: { n: 3 },
        isError: false,
        structuredContent: ours.data,
        text: ours.data,
      });
    },
    90_000,
  );

  it('stops at start (exit 2) on a read-only tool whose statement writes, saying what to do', async () => {
    const engine = engineForUrl(dbUrl);
    const file = configFile(
      stringify({
        url: dbUrl,
        tools: {
          forget: {
            description: 'Says it reads',
            sql: 'delete from notes where id = :id',
            parameters: { id: { type: 'integer' } },
          },
        },
      }),
    );
    const run = spawnSync(process.execPath, [BIN, '--config', file], { input: '', encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(2);
    const line = run.stderr.split('\n').find((l) => l.startsWith('error: '));
    expect(line).toMatch(
      new RegExp(
        `:5: tools\\.forget\\.sql: ${engine.title} (cannot run the statement read-only|refuses the statement): `,
      ),
    );
    // the operator is told the way out, wherever the database refused it
    if (line?.includes('read-only:')) expect(line).toContain('needs readOnly: false, and the server --allow-writes');
    expect(await notes()).toBe(0);
  });

  it('leaves writing to the database: a read-only tool that writes is refused by it, and a slow one cancelled', async () => {
    const engine = engineForUrl(dbUrl);
    const sneaky = SNEAKY[engine.family]!;
    const slow = { description: 'Runs long', sql: { [engine.name]: testFactsOf(engine).slow!.statement } };
    const file = configFile(
      stringify({ url: dbUrl, tools: { sneaky: { description: 'Claims to read', sql: sneaky.sql }, slow } }),
    );
    if (sneaky.atStart) {
      // this database's read-only mode refuses even to explain the write: the start-up check stops the server
      const run = spawnSync(process.execPath, [BIN, '--config', file], {
        input: '',
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stderr).toContain(`${file}:5: tools.sneaky.sql: ${engine.title} ${sneaky.atStart}`);
      expect(await notes()).toBe(0);
    }
    const served = sneaky.atStart ? configFile(stringify({ url: dbUrl, tools: { slow } })) : file;
    const server = await startHttpServer(dbUrl, ['--config', served, '--statement-timeout', String(TIMEOUT_MS)]);
    const c = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
    try {
      if (!sneaky.atStart) {
        const refused = await callJson(c, 'sneaky', {});
        expect(refused.isError, JSON.stringify(refused.data)).toBe(true);
        expect(refused.data).toMatchObject({ error: { code: sneaky.code } });
        // Not the sql tool's courtesy check: custom tools leave the refusal to the database.
        expect(JSON.stringify(refused.data)).not.toContain('only a query');
        expect(await notes()).toBe(0);
      }

      const started = Date.now();
      const slow = await callJson(c, 'slow', {});
      expect(slow.data).toMatchObject({ error: { code: 'timeout' } });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 5000);
    } finally {
      await c.close();
      await server.stop();
    }
  }, 30_000);

  it('runs a writing tool in a read-write transaction when writes are allowed', async () => {
    const file = configFile(
      stringify({
        url: dbUrl,
        tools: {
          add_note: {
            description: 'Adds a note to a customer',
            sql: 'insert into notes (customer_id, body) values (:customer_id, :body)',
            readOnly: false,
            parameters: { customer_id: { type: 'integer' }, body: { type: 'string', description: 'the note' } },
          },
        },
      }),
    );
    const server = await startHttpServer(dbUrl, ['--config', file, '--allow-writes']);
    const c = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
    try {
      const { tools } = await c.listTools();
      expect(tools.find((t) => t.name === 'add_note')?.annotations).toMatchObject({ readOnlyHint: false });
      const before = await notes();
      const added = await callJson(c, 'add_note', { customer_id: 2, body: 'rings on Fridays' });
      expect(added.data).toEqual({ columns: [], rows: [], truncated: false, rowsAffected: 1 });
      expect(await notes()).toBe(before + 1);
      const missing = await callJson(c, 'add_note', { customer_id: 2 });
      expect(missing.data).toMatchObject({ error: { code: 'invalid_argument' } });
    } finally {
      await c.close();
      await server.stop();
    }
  }, 30_000);
});
