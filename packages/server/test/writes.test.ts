import { engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop, SHOP } from './support/shop.js';

/**
 * The write tools and the sql tool through a real MCP client over HTTP, on every live engine:
 * generated keys, atomic transact with guards, caps and empty-filter refusals, and the
 * read-only guarantees the engines themselves enforce.
 */

/** Statements that try to change data through the sql tool; every one must fail and change nothing. */
const BYPASS_ATTEMPTS: string[] = [
  'delete from customers',
  "update customers set name = 'x'",
  "insert into notes (body) values ('x')",
  'drop table customers',
  'truncate table customers',
  'create table evil (x integer)',
  'alter table customers add column evil integer',
  'select 1; delete from customers',
  'select 1; commit; delete from customers',
  'commit; delete from customers',
  'rollback; delete from customers',
  'select * from customers; drop table customers',
  'select 1 /* ; */; delete from customers --',
  'select 1 --\n; delete from customers',
  "select ';'; delete from customers",
  'select 1) q; delete from customers; --',
  'select 1) as q; commit; delete from customers; select (1',
  'SeLeCt 1; DeLeTe FROM customers',
  'with d as (delete from customers returning *) select * from d',
  'with d as (select 1) delete from customers',
  'set transaction read write; delete from customers',
  'set session transaction read write',
  'start transaction read write',
  'begin; delete from customers; commit',
  'select * from customers for update; delete from customers',
  "select set_config('transaction_read_only', 'off', true); delete from customers",
  'do $$ begin delete from customers; end $$',
  'select $$;$$; delete from customers',
  "copy customers from program 'true'",
  '/*!40000 delete from customers */ select 1',
  '/*M!100000 delete from customers */ select 1',
  'lock tables customers write',
  'handler customers open',
  'set sql_select_limit = 1',
  "select 1 into outfile 'evil.txt'",
  'pragma query_only = off',
  'pragma writable_schema = on',
  "attach database 'evil.db' as evil",
  'vacuum',
  'reindex',
  "select load_extension('evil')",
  'replace into customers (id) values (1)',
  'call evil()',
  'values (1); delete from customers',
  '(select 1); delete from customers',
  'explain delete from customers',
];

// A read-write and a read-only server share each database: engines open in one process at a time sit this out.
const targets = liveTargets().filter((t) => !engineForUrl(t.baseUrl).oneProcess);

describe.each(targets)('$engine', (target) => {
  let dbUrl = '';
  let writer: HttpServer;
  let reader: HttpServer;
  let w: Client;
  let r: Client;

  /** Every row of every table, through the query tool: what "unchanged" is checked against. */
  const snapshot = async () => {
    const out: Record<string, unknown> = {};
    for (const table of [...SHOP.map((t) => t.name), 'notes']) {
      out[table] = (await callJson(r, 'query', { table, limit: 1000 })).data;
    }
    return JSON.stringify(out);
  };
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked by value
  const ok = async (client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> => {
    const outcome = await callJson(client, name, args);
    expect(outcome.isError, JSON.stringify(outcome.data)).toBe(false);
    return outcome.data;
  };
  const fails = async (client: Client, name: string, args: Record<string, unknown>, code: string) => {
    const outcome = await callJson(client, name, args);
    expect(outcome.isError, JSON.stringify(outcome.data)).toBe(true);
    expect((outcome.data as { error: { code: string } }).error.code, JSON.stringify(outcome.data)).toBe(code);
    return (outcome.data as { error: { message: string } }).error.message;
  };

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_writes_tools');
    await loadShop(dbUrl);
    const engine = engineForUrl(dbUrl);
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1 });
    await sql.raw(testFactsOf(engine).notesTable).execute(db);
    await close();
    [writer, reader] = await Promise.all([
      startHttpServer(dbUrl, ['--allow-writes', '--sql', '--statement-timeout', '1500']),
      startHttpServer(dbUrl, ['--sql', '--statement-timeout', '1500']),
    ]);
    [w, r] = await Promise.all([
      connectClient('http', 'modern', { dbUrl, endpoint: writer.endpoint }),
      connectClient('http', 'legacy', { dbUrl, endpoint: reader.endpoint }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([w?.close(), r?.close()]);
    await Promise.all([writer?.stop(), reader?.stop()]);
  });

  it('registers write tools only with --allow-writes, with honest annotations', async () => {
    const readTools = (await r.listTools()).tools.map((t) => t.name);
    expect(readTools).toEqual(['list_tables', 'describe_table', 'query', 'get', 'aggregate', 'sql']);
    const tools = (await w.listTools()).tools;
    expect(tools.map((t) => t.name)).toEqual([...readTools, 'insert', 'update', 'delete', 'transact']);
    for (const t of tools.filter((t) => ['update', 'delete', 'transact'].includes(t.name))) {
      expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    expect(tools.find((t) => t.name === 'sql')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('insert returns generated keys in row order, and the rows read back', async () => {
    const out = await ok(w, 'insert', {
      table: 'notes',
      rows: [{ customer_id: 1, body: 'first' }, { customer_id: 2, body: 'second', n: 5 }, { body: 'third' }],
    });
    expect(out.inserted).toBe(3);
    const ids = out.keys.map((k: { id: number }) => k.id);
    expect(ids).toHaveLength(3);
    expect(ids[1]).toBeGreaterThan(ids[0]);
    expect(ids[2]).toBeGreaterThan(ids[1]);
    const back = await ok(r, 'query', { table: 'notes', filter: { column: 'id', op: 'in', value: ids } });
    expect(back.rows).toEqual([
      { id: ids[0], customer_id: 1, body: 'first', n: 0 },
      { id: ids[1], customer_id: 2, body: 'second', n: 5 },
      { id: ids[2], customer_id: null, body: 'third', n: 0 },
    ]);
    // Given keys come back as given; portable values (decimal strings, ISO timestamps) are accepted.
    const given = await ok(w, 'insert', {
      table: 'customers',
      rows: [{ id: 1001, name: 'New', email: null, vip: true, balance: '12.34', created_at: '2024-02-29T23:59:59.5Z' }],
    });
    expect(given.keys).toEqual([{ id: 1001 }]);
    expect((await ok(r, 'get', { table: 'customers', key: 1001 })).row).toEqual({
      id: 1001,
      name: 'New',
      email: null,
      vip: true,
      balance: '12.34',
      created_at: '2024-02-29T23:59:59.5Z',
    });
  });

  it('a failing insert row rolls back the whole call', async () => {
    const before = await snapshot();
    await fails(
      w,
      'insert',
      {
        table: 'customers',
        rows: [
          { id: 1002, name: 'A', vip: false, balance: '1', created_at: '2024-01-01T00:00:00Z' },
          { id: 1003, name: 'B', vip: 'maybe', balance: '1', created_at: '2024-01-01T00:00:00Z' },
        ],
      },
      'type_mismatch',
    );
    await fails(
      w,
      'insert',
      {
        table: 'customers',
        rows: [{ id: 1, name: 'dup', vip: false, balance: '1', created_at: '2024-01-01T00:00:00Z' }],
      },
      'database_error',
    );
    await fails(w, 'insert', { table: 'customers', rows: [{ nope: 1 }] }, 'unknown_column');
    await fails(w, 'insert', { table: 'customers', rows: [{}] }, 'invalid_argument');
    expect(await snapshot()).toBe(before);
  });

  it('update adds exactly inside the database and counts matched rows', async () => {
    const before = (await ok(r, 'get', { table: 'customers', key: 2 })).row.balance as string;
    const out = await ok(w, 'update', { table: 'customers', set: { balance: { add: '0.10' } }, filter: 'id = 2' });
    expect(out).toEqual({ updated: 1 });
    const after = (await ok(r, 'get', { table: 'customers', key: 2 })).row.balance as string;
    expect(Math.round(Number(after) * 100) - Math.round(Number(before) * 100)).toBe(10);
    // Setting a value to what it already is still counts the row (MySQL would say 0 without FOUND_ROWS).
    const vip = (await ok(r, 'get', { table: 'customers', key: 3 })).row.vip;
    expect(
      await ok(w, 'update', { table: 'customers', set: { vip }, filter: { column: 'id', op: '=', value: 3 } }),
    ).toEqual({ updated: 1 });
  });

  it('update and delete refuse an empty filter, a capped match, and primary key changes, changing nothing', async () => {
    const before = await snapshot();
    await fails(w, 'update', { table: 'customers', set: { name: 'x' }, filter: '' }, 'invalid_argument');
    await fails(w, 'update', { table: 'customers', set: { name: 'x' }, filter: {} }, 'invalid_argument');
    await fails(w, 'delete', { table: 'customers', filter: '  ' }, 'invalid_argument');
    await fails(w, 'update', { table: 'customers', set: {}, filter: 'id = 1' }, 'invalid_argument');
    await fails(w, 'update', { table: 'customers', set: { id: 5000 }, filter: 'id = 1' }, 'invalid_argument');
    await fails(w, 'update', { table: 'customers', set: { name: { add: 1 } }, filter: 'id = 1' }, 'type_mismatch');
    const capped = await fails(
      w,
      'update',
      { table: 'orders', set: { note: 'x' }, filter: 'id <= 3', max_rows: 2 },
      'limit_exceeded',
    );
    expect(capped).toContain('3 rows');
    await fails(w, 'delete', { table: 'order_items', filter: 'order_id <= 10', max_rows: 5 }, 'limit_exceeded');
    await fails(w, 'delete', { table: 'paid_orders', filter: 'id = 1' }, 'invalid_argument');
    expect(await snapshot()).toBe(before);
  });

  it('delete removes exactly the matched rows', async () => {
    const { keys } = await ok(w, 'insert', {
      table: 'notes',
      rows: [{ body: 'gone 1' }, { body: 'gone 2' }, { body: 'kept' }],
    });
    const out = await ok(w, 'delete', { table: 'notes', filter: "body like 'gone %'" });
    expect(out).toEqual({ deleted: 2 });
    const left = await ok(r, 'query', {
      table: 'notes',
      filter: { column: 'id', op: 'in', value: keys.map((k: { id: number }) => k.id) },
    });
    expect(left.rows.map((x: { body: string }) => x.body)).toEqual(['kept']);
  });

  it('transact applies every step or none, and a guard rolls all back', async () => {
    const balance = async (id: number) =>
      Math.round(Number((await ok(r, 'get', { table: 'customers', key: id })).row.balance) * 100);
    const [a0, b0] = [await balance(4), await balance(5)];
    const transfer = (amount: string, guard: string) => ({
      steps: [
        {
          op: 'update',
          table: 'customers',
          set: { balance: { add: `-${amount}` } },
          filter: `id = 4 and balance >= ${guard}`,
          expect_rows: 1,
        },
        { op: 'update', table: 'customers', set: { balance: { add: amount } }, filter: 'id = 5', expect_rows: 1 },
        { op: 'insert', table: 'notes', rows: [{ customer_id: 4, body: `paid ${amount} to 5` }] },
      ],
    });
    const out = await ok(w, 'transact', transfer('1.25', '-1000000'));
    expect(out.results.map((x: { op: string }) => x.op)).toEqual(['update', 'update', 'insert']);
    expect(out.results[2].keys).toHaveLength(1);
    expect([await balance(4), await balance(5)]).toEqual([a0 - 125, b0 + 125]);

    const before = await snapshot();
    const message = await fails(w, 'transact', transfer('1.25', '100000000'), 'conflict');
    expect(message).toContain('steps[0]');
    // A failing later step undoes the earlier ones too.
    await fails(
      w,
      'transact',
      { steps: [transfer('2.00', '-1000000').steps[0], { op: 'insert', table: 'notes', rows: [{ nope: 1 }] }] },
      'unknown_column',
    );
    await fails(
      w,
      'transact',
      {
        steps: [transfer('2.00', '-1000000').steps[0], { op: 'delete', table: 'notes', filter: 'id > 0', max_rows: 1 }],
      },
      'limit_exceeded',
    );
    expect(await snapshot()).toBe(before);
  });

  it('sql runs one parameterised query the same way on every engine', async () => {
    const out = await ok(r, 'sql', {
      sql: "select id, name from customers where id in (:a, :b) and name <> ':not_a_param' -- :nor_this\n order by id desc",
      params: { a: 2, b: 3 },
    });
    expect(out.columns).toEqual(['id', 'name']);
    expect(out.rows.map((x: { id: unknown }) => Number(x.id))).toEqual([3, 2]);
    const capped = await ok(r, 'sql', {
      sql: 'select id from orders where customer_id >= :min order by id;',
      params: { min: 1 },
      limit: 5,
    });
    expect(capped.truncated).toBe(true);
    expect(capped.rows.map((x: { id: unknown }) => Number(x.id))).toEqual([1, 2, 3, 4, 5]);
    expect(await fails(r, 'sql', { sql: 'select :x', params: {} }, 'invalid_argument')).toContain(':x');
    // A value never becomes SQL text: a hostile string is just a string that matches nothing.
    const hostile = await ok(r, 'sql', {
      sql: 'select id from customers where name = :n',
      params: { n: "x' or '1'='1" },
    });
    expect(hostile.rows).toEqual([]);
  });

  it.each([
    ['read-only server', () => r],
    ['read-write server', () => w],
  ])('sql refuses every write attempt on a %s, and nothing changes', async (_, client) => {
    const before = await snapshot();
    for (const attempt of BYPASS_ATTEMPTS) {
      const outcome = await callJson(client(), 'sql', { sql: attempt });
      expect(outcome.isError, `${attempt} -> ${JSON.stringify(outcome.data)}`).toBe(true);
    }
    // Comments that MySQL would run as code are refused there, and are only comments elsewhere.
    const versioned = await callJson(client(), 'sql', { sql: 'select 1 /*!40000 ; delete from customers */' });
    expect(versioned.isError).toBe(engineForUrl(dbUrl).family === 'mysql');
    if (engineForUrl(dbUrl).family === 'mysql') {
      // Refused before it reaches the server, so whether the user has FILE (which would let it write the file) does not matter.
      expect(await fails(client(), 'sql', { sql: "select 1 into outfile 'evil.txt'" }, 'invalid_argument')).toMatch(
        /INTO OUTFILE/,
      );
    }
    if (engineForUrl(dbUrl).family === 'postgres') {
      // Settings are refused outright (a change would also be rolled back with the transaction).
      expect(
        await fails(
          client(),
          'sql',
          { sql: "select set_config('default_transaction_read_only', 'off', false)" },
          'invalid_argument',
        ),
      ).toMatch(/set_config/);
      const after = await ok(client(), 'sql', { sql: "select current_setting('default_transaction_read_only') as v" });
      // The sql tool's own sessions are read-only whatever --allow-writes says.
      expect(after.rows).toEqual([{ v: 'on' }]);
    }
    expect(await snapshot()).toBe(before);
  });

  it('read-only sessions are enforced by the engine itself, not only by which tools exist', async () => {
    const engine = engineForUrl(dbUrl);
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1, readOnly: true });
    try {
      for (const statement of [
        "insert into notes (body) values ('x')",
        'delete from notes',
        'update customers set vip = vip',
      ]) {
        const error = await sql
          .raw(statement)
          .execute(db)
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(error, statement).toBeDefined();
        expect(engine.mapError(error)?.code, String(error)).toBe('read_only');
      }
    } finally {
      await close();
    }
  });
});
