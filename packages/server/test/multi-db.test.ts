import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname } from 'node:path';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseContext, openDatabase } from '../src/context.js';
import { DatabaseListError, databaseUrls, splitDatabaseUrl } from '../src/database-urls.js';
import { type Databases, openDatabases } from '../src/databases.js';
import { createServerFactory, directTools } from '../src/server.js';
import { toolsFor } from '../src/tools/index.js';
import { autoWorkers } from '../src/transports/cluster.js';
import { startHttp } from '../src/transports/http.js';
import { startServerProcess } from '../src/transports/ready.js';
import { loadParityFixture } from './support/fixture.js';
import { BIN, batchRequest, connectClient, MODERN_REVISION, modernRequest } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * One server serving several databases (`--url NAME=URL`): the same tools, each that touches
 * data with a `database` argument, answering exactly as a server of that database alone would.
 * SQLite holds the shop, PostgreSQL the parity fixture: their tables differ (order_items only in
 * the shop, kinds only in the fixture; both have customers and orders, with other rows), so a call
 * sent to the wrong database gives a different answer.
 */

describe('--url NAME=URL: the split rule', () => {
  it('reads NAME= only when the text before the first = is free of ":"', () => {
    expect(splitDatabaseUrl('postgres://u:p@h:5432/db?sslmode=require')).toEqual({
      url: 'postgres://u:p@h:5432/db?sslmode=require',
    });
    expect(splitDatabaseUrl('sqlite:./a=b.db')).toEqual({ url: 'sqlite:./a=b.db' });
    expect(splitDatabaseUrl('shop=sqlite:./a=b.db')).toEqual({ name: 'shop', url: 'sqlite:./a=b.db' });
    expect(splitDatabaseUrl('main_2=postgres://h/db?x=1')).toEqual({ name: 'main_2', url: 'postgres://h/db?x=1' });
    expect(splitDatabaseUrl('sqlite::memory:')).toEqual({ url: 'sqlite::memory:' });
  });

  it('refuses a name that is not a short identifier, and a name without a URL', () => {
    for (const bad of ['Shop=sqlite:x', 'my-db=sqlite:x', '1st=sqlite:x', '=sqlite:x', 'a.b=sqlite:x'])
      expect(() => splitDatabaseUrl(bad), bad).toThrow(DatabaseListError);
    expect(() => splitDatabaseUrl('shop=')).toThrow(/no URL after the name/);
  });

  it('serves one value as one database, named or not; several need unique names and known engines', () => {
    expect(databaseUrls(['sqlite:x'])).toEqual([{ url: 'sqlite:x' }]);
    expect(databaseUrls(['shop=sqlite:x'])).toEqual([{ name: 'shop', url: 'sqlite:x' }]);
    expect(databaseUrls(['a=sqlite:x', 'b=postgres://h/db'])).toEqual([
      { name: 'a', url: 'sqlite:x' },
      { name: 'b', url: 'postgres://h/db' },
    ]);
    expect(() => databaseUrls(['sqlite:x', 'b=sqlite:y'])).toThrow(/each needs a name: --url NAME=URL/);
    expect(() => databaseUrls(['a=sqlite:x', 'a=sqlite:y'])).toThrow(/the name a is given twice/);
    expect(() => databaseUrls(['a=sqlite:x', 'b=nope:y'])).toThrow(/--url b: unknown database URL scheme "nope:"/);
    // The password never reaches the message.
    expect(() => databaseUrls(['postgres://u:secret@h/db', 'b=sqlite:y'])).toThrow(/u:\*\*\*@h/);
    expect(() => databaseUrls(['postgres://u:secret@h/db', 'b=sqlite:y'])).not.toThrow(/secret/);
  });
});

describe('one server process per core, or one for PGlite', () => {
  it('counts every database: one process when any of them must stay in one', async () => {
    expect(await autoWorkers(['a=pglite::memory:', 'b=sqlite:x'])).toBe(1);
    expect(await autoWorkers(['a=sqlite:x', 'b=sqlite:y'])).toBe(await autoWorkers(['sqlite:x']));
  });
});

const targets = liveTargets();
const sqliteTarget = targets.find((t) => t.engine === 'sqlite')!;
const pgTarget = targets.find((t) => t.engine === 'postgres');
const NAMES = ['shop', 'parity'];

/** The calls compared: [database, tool, arguments]. */
const CALLS: [string, string, Record<string, unknown>][] = [
  ['shop', 'describe_table', { table: 'order_items' }],
  ['shop', 'query', { table: 'orders', filter: 'customer_id = 2', limit: 5 }],
  ['shop', 'get', { table: 'orders', key: 3 }],
  ['shop', 'aggregate', { table: 'orders', aggregates: [{ fn: 'count' }], group_by: ['customer_id'], limit: 3 }],
  ['shop', 'sql', { sql: 'select count(*) as n from order_items' }],
  ['shop', 'describe_table', { table: 'kinds' }],
  ['parity', 'describe_table', { table: 'kinds' }],
  ['parity', 'query', { table: 'orders', filter: 'customer_id = 2', limit: 5 }],
  ['parity', 'get', { table: 'customers', key: 3 }],
  ['parity', 'aggregate', { table: 'order_lines', aggregates: [{ fn: 'sum', column: 'qty' }] }],
  ['parity', 'sql', { sql: 'select count(*) as n from order_lines' }],
  ['parity', 'get', { table: 'order_items', key: 1 }],
];

interface Answer {
  isError: boolean;
  data: unknown;
}

async function connect(endpoint: string, era: 'modern' | 'legacy'): Promise<Client> {
  const client = new Client(
    { name: 'multi-db-test', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN_REVISION } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
  return client;
}

async function answer(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text: string }[])[0]!.text;
  return { isError: result.isError === true, data: result.isError ? JSON.parse(text) : result.structuredContent };
}

describe.skipIf(!pgTarget)('one server over SQLite and PostgreSQL', () => {
  const tools = toolsFor({ sql: true, allowWrites: true, echo: true });
  let urls: Record<string, string>;
  let several: Databases;
  const singles = new Map<string, DatabaseContext>();
  const servers: Server[] = [];
  const clients: Client[] = [];
  /** the several databases: with the hot paths (fast path, legacy path) and with every request through the SDK */
  let hot: string;
  let sdkOnly: string;
  const single = new Map<string, Client>();

  const serve = async (...args: Parameters<typeof startHttp>) => {
    const started = await startHttp(...args);
    servers.push(started.server);
    return started.url;
  };
  const client = async (endpoint: string, era: 'modern' | 'legacy') => {
    const c = await connect(endpoint, era);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    urls = {
      shop: await freshDatabase(sqliteTarget, 'bench_multi_shop'),
      parity: await freshDatabase(pgTarget!, 'bench_multi_parity'),
    };
    await loadShop(urls.shop!);
    await loadParityFixture(urls.parity!);
    several = await openDatabases(
      NAMES.map((name) => ({ name, url: urls[name]! })),
      { allowWrites: true },
    );
    const factory = createServerFactory(several.served, tools);
    hot = await serve(factory, {
      host: '127.0.0.1',
      port: 0,
      direct: directTools(several.served, tools),
      health: several.ping,
    });
    sdkOnly = await serve(factory, { host: '127.0.0.1', port: 0 });
    for (const name of NAMES) {
      const ctx = await openDatabase({ url: urls[name]!, allowWrites: true });
      singles.set(name, ctx);
      const endpoint = await serve(createServerFactory(ctx, tools), {
        host: '127.0.0.1',
        port: 0,
        direct: directTools(ctx, tools),
      });
      single.set(name, await client(endpoint, 'modern'));
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await several?.close();
    await Promise.allSettled([...singles.values()].map((ctx) => ctx.close()));
    // The SQLite file's own temporary folder.
    if (urls?.shop) rmSync(dirname(urls.shop.slice('sqlite:'.length)), { recursive: true, force: true });
  });

  it('lists as many tools as one database does, each that touches data with a database argument', async () => {
    const c = await client(hot, 'modern');
    const many = (await c.listTools()).tools;
    const one = (await single.get('shop')!.listTools()).tools;
    expect(many.map((t) => t.name)).toEqual(one.map((t) => t.name));
    for (const tool of many) {
      const props = tool.inputSchema.properties as Record<string, { enum?: string[] }>;
      if (tool.name === 'echo') {
        expect(props.database).toBeUndefined();
        continue;
      }
      expect(props.database?.enum, tool.name).toEqual(NAMES);
      expect(tool.inputSchema.required?.includes('database') ?? false, tool.name).toBe(tool.name !== 'list_tables');
    }
    // One database: no database argument anywhere.
    expect(one.some((t) => 'database' in ((t.inputSchema.properties as object) ?? {}))).toBe(false);
  });

  it('serves one named database as one: no database argument', async () => {
    const one = await openDatabases([{ name: 'shop', url: urls.shop! }], {});
    try {
      expect(one.served).toBe(one.contexts.get('shop'));
    } finally {
      await one.close();
    }
  });

  it('names the databases in its instructions', async () => {
    const c = await client(hot, 'modern');
    expect(c.getInstructions()).toMatch(/several relational databases: shop \(sqlite\), parity \(postgres\)/);
    expect(single.get('shop')!.getInstructions()).toMatch(/access to one relational database\./);
  });

  for (const [path, era] of [
    ['fast path', 'modern'],
    ['2025-era path', 'legacy'],
    ['SDK path', 'modern'],
  ] as const) {
    it(`answers every call as that database's own server does (${path})`, async () => {
      const c = await client(path === 'SDK path' ? sdkOnly : hot, era);
      for (const [database, name, args] of CALLS) {
        const expected = await answer(single.get(database)!, name, args);
        const got = await answer(c, name, { ...args, database });
        expect(got, `${database} ${name} ${JSON.stringify(args)}`).toEqual(expected);
      }
    });
  }

  it('answers the plain modern call on the fast path, as the SDK does', async () => {
    const call = modernRequest('tools/call', 1, {
      name: 'get',
      arguments: { table: 'kinds', key: 1, database: 'parity' },
    });
    const send = async (endpoint: string) => {
      const res = await fetch(endpoint, { method: 'POST', ...call });
      return { fixedLength: res.headers.get('content-length') !== null, json: JSON.parse(await res.text()) };
    };
    const [fast, sdk] = [await send(hot), await send(sdkOnly)];
    expect(fast.fixedLength).toBe(true);
    expect(sdk.fixedLength).toBe(false);
    expect(fast.json).toEqual(sdk.json);
    expect(fast.json.result.structuredContent.row.id).toBe(1);
  });

  it('routes each call of a 2025-03-26 batch to its database', async () => {
    const calls = [
      { name: 'get', arguments: { table: 'orders', key: 3, database: 'shop' } },
      { name: 'get', arguments: { table: 'orders', key: 3, database: 'parity' } },
      { name: 'get', arguments: { table: 'kinds', key: 1, database: 'shop' } },
    ];
    const res = await fetch(hot, { method: 'POST', ...batchRequest(calls) });
    const text = await res.text();
    const messages = (
      res.headers.get('content-type')?.includes('event-stream')
        ? [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!))
        : JSON.parse(text)
    ) as { id: number; result: { isError?: boolean; structuredContent?: { row: unknown } } }[];
    const byId = new Map(messages.map((m) => [m.id, m.result]));
    expect(byId.get(1)).not.toEqual(byId.get(2));
    for (const [i, params] of calls.entries()) {
      const { database, ...args } = params.arguments;
      const expected = await answer(single.get(database)!, 'get', args);
      const got = byId.get(i + 1)!;
      expect(got.isError === true, JSON.stringify(params)).toBe(expected.isError);
      if (!expected.isError) expect(got.structuredContent).toEqual(expected.data);
    }
  });

  it('answers a missing or unknown database with an error that names the databases', async () => {
    for (const c of [await client(hot, 'modern'), await client(sdkOnly, 'modern'), await client(hot, 'legacy')]) {
      for (const database of [undefined, 'nope']) {
        const got = await answer(c, 'get', { table: 'orders', key: 1, ...(database && { database }) });
        expect(got.isError).toBe(true);
        expect(got.data).toEqual({
          error: { code: 'invalid_argument', message: 'database: name one of the databases: shop, parity' },
        });
      }
    }
  });

  it('lists every database’s tables grouped by database, or one database’s', async () => {
    const c = await client(hot, 'modern');
    const expected = await Promise.all(
      NAMES.map(async (name) => ({
        name,
        engine: singles.get(name)!.engine.name,
        tables: ((await answer(single.get(name)!, 'list_tables', {})).data as { tables: unknown[] }).tables,
      })),
    );
    expect(await answer(c, 'list_tables', {})).toEqual({ isError: false, data: { databases: expected } });
    expect(await answer(c, 'list_tables', { database: 'parity' })).toEqual({
      isError: false,
      data: { databases: [expected[1]] },
    });
    expect((await answer(c, 'list_tables', { database: 'nope' })).isError).toBe(true);
  });

  it('writes to the named database only, transact included', async () => {
    const c = await client(hot, 'modern');
    const inserted = await answer(c, 'insert', {
      database: 'parity',
      table: 'customers',
      rows: [{ id: 900, name: 'Multi', email: 'multi@example.com', tier: 'gold', active: true }],
    });
    expect(inserted.isError, JSON.stringify(inserted.data)).toBe(false);
    expect((await answer(single.get('parity')!, 'get', { table: 'customers', key: 900 })).data).toMatchObject({
      row: { id: 900, name: 'Multi' },
    });
    expect((await answer(single.get('shop')!, 'get', { table: 'customers', key: 900 })).data).toMatchObject({
      row: null,
    });
    const moved = await answer(c, 'transact', {
      database: 'shop',
      steps: [{ op: 'update', table: 'customers', set: { name: 'Renamed' }, filter: 'id = 1', expect_rows: 1 }],
    });
    expect(moved.isError, JSON.stringify(moved.data)).toBe(false);
    expect((await answer(single.get('shop')!, 'get', { table: 'customers', key: 1 })).data).toMatchObject({
      row: { name: 'Renamed' },
    });
    expect((await answer(single.get('parity')!, 'get', { table: 'customers', key: 1 })).data).not.toMatchObject({
      row: { name: 'Renamed' },
    });
  });

  it('answers /healthz only when every database answers', async () => {
    const health = new URL('/healthz', hot).href;
    expect((await fetch(health)).status).toBe(200);
  });

  it('serves both from the bin with worker processes: one start line per database, each worker opening its own', async () => {
    const server = await startServerProcess(
      ['--url', `shop=${urls.shop}`, '--url', `parity=${urls.parity}`, '--http', '--port', '0', '--workers', '2'],
      { bin: BIN, env: { ...process.env } },
    );
    try {
      const lines = server.stderr().split('\n');
      const shopLine = lines.find((l) => l.startsWith('mcp-db-server: shop: sqlite sqlite:'));
      const parityLine = lines.find((l) => l.startsWith('mcp-db-server: parity: postgres '));
      expect(shopLine, server.stderr()).toMatch(/: \d+ tables and views, read-only, statement timeout 30000 ms$/);
      expect(parityLine, server.stderr()).toMatch(/: \d+ tables and views, read-only, statement timeout 30000 ms$/);
      // The password is redacted (the test URL has one).
      if (/:\/\/[^:/@]+:[^@/]+@/.test(urls.parity!)) expect(parityLine).toMatch(/:\*\*\*@/);
      expect((await fetch(new URL('/healthz', server.endpoint))).status).toBe(200);
      const c = await client(server.endpoint, 'modern');
      // Round-robin over the workers: each must route both databases.
      const expected = await Promise.all(
        NAMES.map((db) => answer(single.get(db)!, 'get', { table: 'orders', key: 3 })),
      );
      expect(expected[0]).not.toEqual(expected[1]);
      for (let i = 0; i < 4; i++)
        for (const [n, database] of NAMES.entries())
          expect(await answer(c, 'get', { table: 'orders', key: 3, database })).toEqual(expected[n]);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('serves both over stdio', async () => {
    const c = await connectClient('stdio', 'modern', {
      dbUrl: `shop=${urls.shop}`,
      args: ['--url', `parity=${urls.parity}`],
    });
    clients.push(c);
    for (const database of NAMES)
      expect(await answer(c, 'get', { table: 'orders', key: 3, database })).toEqual(
        await answer(single.get(database)!, 'get', { table: 'orders', key: 3 }),
      );
  }, 30_000);

  it('fails to start when one database cannot be opened, naming it', async () => {
    const missing = urls.shop!.replace(/\.db$/, '-missing.db');
    const args = [
      '--url',
      `parity=${urls.parity}`,
      '--url',
      `gone=${missing}`,
      '--http',
      '--port',
      '0',
      '--workers',
      '1',
    ];
    const failed = await startServerProcess(args, { bin: BIN, env: { ...process.env } }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/database gone \(sqlite:.*-missing\.db\): cannot open SQLite database .*: no such file/);
  }, 30_000);
});
