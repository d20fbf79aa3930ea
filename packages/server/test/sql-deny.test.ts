import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineForUrl } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets, privilegedTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { buildCli } from '../src/options.js';
import { BIN, callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * PostgreSQL's sql tool denies by default, attacked through the tool itself. The test database has
 * the extensions Debian's postgresql-15 package ships that run SQL given as text, dial other
 * connections or add operators (tablefunc, xml2, dblink, hstore). Each attack is refused, through a
 * server on the least-privilege role and through one on a superuser; controls show the channel is
 * real (the same statement, run directly, reads the host's files or deletes rows through a
 * read-only transaction); and afterwards the rows, the extensions, another session's prepared
 * statement and the servers' own connections are as they were, and no answer held a file's text.
 * The public classes reported against other MCP database servers are attacks here too.
 */

/**
 * The start arguments of the server on a privileged login, in one place: a server may come to
 * refuse --sql on a superuser unless told the operator accepts it.
 */
function privilegedServerArgs(): string[] {
  return ['--sql', '--sql-privileged-login', '--pool-size', '4'];
}

const isServer = (t: { baseUrl: string }) => t.baseUrl.includes('://');
const isPostgres = (t: { baseUrl: string }) => isServer(t) && engineForUrl(t.baseUrl).name === 'postgres';
const target = liveTargets().find(isPostgres);
const admin = privilegedTargets().find(isPostgres);

/** The first line of /etc/passwd, which a file read would answer. */
const PASSWD = 'root:x:0:0';

interface Attack {
  /** the public report it stands for, or the class */
  what: string;
  text: string;
  /** what the refusal must name */
  names: string;
}

/** `dbname=... user=... password=... host=...` for dblink, from a URL. */
function conninfo(url: string): string {
  const u = new URL(url);
  const user = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  return `dbname=${u.pathname.slice(1)} user=${user} password=${password} host=${u.hostname} port=${u.port || 5432}`;
}

function attacks(dbUrl: string): Attack[] {
  const dial = conninfo(dbUrl).replaceAll("'", "''");
  const read = "select 'r'::text, 'c'::text, pg_read_file('/etc/passwd')";
  return [
    { what: 'tablefunc', text: `select * from crosstab2($$${read}$$)`, names: 'crosstab2' },
    { what: 'tablefunc', text: `select * from crosstab3($$${read}$$)`, names: 'crosstab3' },
    { what: 'tablefunc', text: `select * from crosstab4($$${read}$$)`, names: 'crosstab4' },
    {
      what: 'tablefunc',
      text: "select * from crosstab($$select 'r'::text, 'c'::text, f from pg_ls_dir('/') f$$) as t(r text, c text)",
      names: 'crosstab',
    },
    {
      what: 'tablefunc',
      text: "select * from connectby('customers', 'id', 'id', '1', 0) as t(a int, b int, c int)",
      names: 'connectby',
    },
    {
      what: 'xml2',
      text: "select * from xpath_table('id', 'x', '(select 1 as id, pg_read_file(''/etc/passwd'') as x) s', '/a', 'true') as t(id int, a text)",
      names: 'xpath_table',
    },
    {
      what: 'dblink',
      text: `select * from dblink('${dial}', 'select count(*) from customers') as t(n bigint)`,
      names: 'dblink',
    },
    {
      what: 'dblink (DeepSQL #112)',
      text: `select dblink_exec('${dial}', 'delete from order_items')`,
      names: 'dblink_exec',
    },
    { what: 'dblink', text: `select dblink_connect('evil', '${dial}')`, names: 'dblink_connect' },
    {
      what: 'other sessions',
      text: 'select pg_terminate_backend(pid) from pg_stat_activity where usename = current_user and pid <> pg_backend_pid()',
      names: 'pg_terminate_backend',
    },
    {
      what: 'prepared statements (SQL in a string)',
      text: "select * from crosstab2('deallocate all')",
      names: 'crosstab2',
    },
    {
      what: 'prepared statements (SQL in a string)',
      text: "select query_to_xml('prepare mcp_1 as select 666', true, true, '')",
      names: 'query_to_xml',
    },
    {
      what: 'index maintenance',
      text: "select gin_clean_pending_list('orders_gin'::regclass)",
      names: 'gin_clean_pending_list',
    },
    {
      what: 'index maintenance',
      text: "select brin_summarize_new_values('orders_brin'::regclass)",
      names: 'brin_summarize_new_values',
    },
    { what: 'transaction ids', text: 'select txid_current()', names: 'txid_current' },
    { what: 'extension operator', text: "select %% 'a=>1'", names: '%%' },
    { what: 'extension type', text: "select 'a=>1'::hstore -> 'a'", names: 'hstore' },
    // the fourth round: where else an extension's operator or type, or a lock, may hide
    { what: 'operator of a subquery comparison', text: "select 'abc' % any (select 'abd')", names: '%' },
    { what: 'operator over an array', text: "select 'abc' % all (array['abd'])", names: '%' },
    { what: "an extension's operator on built-in types", text: 'select array[1, 2] && array[1]', names: '&&' },
    {
      what: 'extension type in a column definition list',
      text: `select * from json_to_record('{"a": "x=>1"}') as x(a hstore)`,
      names: 'hstore',
    },
    { what: 'locking read', text: 'select * from customers for share', names: 'read-only transaction' },
    { what: 'locking read', text: 'select * from customers for key share', names: 'read-only transaction' },
    { what: 'locking read', text: 'select id from customers where id = 1 for update', names: 'read-only transaction' },
    { what: 'sequence', text: "select nextval('customers_id_seq')", names: 'nextval' },
    { what: 'another database', text: 'select * from postgres.public.customers', names: 'cross-database' },
    { what: 'session state', text: 'listen mcp_channel', names: 'LISTEN' },
    { what: 'session state', text: "select pg_notify('mcp_channel', 'x')", names: 'pg_notify' },
    { what: 'session state', text: 'declare c cursor with hold for select 1', names: 'DECLARE' },
    { what: 'a write under EXPLAIN ANALYZE', text: 'explain analyze delete from order_items', names: 'EXPLAIN' },
    // the public classes
    {
      what: 'data-modifying CTE',
      text: 'with d as (delete from order_items returning *) select * from d',
      names: 'delete',
    },
    { what: 'pgEdge #196', text: '/* x */ select 1; delete from order_items', names: 'more than one statement' },
    { what: 'pgEdge #196', text: '-- x\nselect 1; delete from order_items', names: 'more than one statement' },
    { what: 'pgEdge #220', text: "select pg_read_file('/etc/passwd')", names: 'pg_read_file' },
    { what: 'pgEdge #220', text: "select pg_read_binary_file('/etc/passwd')", names: 'pg_read_binary_file' },
    { what: 'pgEdge #220', text: "select * from pg_ls_dir('/')", names: 'pg_ls_dir' },
    { what: 'pgEdge #220', text: "select lo_import('/etc/passwd')", names: 'lo_import' },
    {
      what: 'DBHub #349',
      text: "select query_to_xml('delete from order_items returning *', true, true, '')",
      names: 'query_to_xml',
    },
    {
      what: 'DBHub #349',
      text: "select * from crosstab3('delete from order_items returning 1, 2, 3')",
      names: 'crosstab3',
    },
  ];
}

describe('--sql-allow-function and sql.allowFunctions', () => {
  const parse = (...args: string[]) =>
    buildCli()
      .exitOverride()
      .configureOutput({ writeErr: () => {} })
      .parse(['node', 'x', ...args])
      .opts();

  it('collects names, repeated or separated by commas, and refuses what is not a name', () => {
    expect(parse('--sql-allow-function', 'crosstab, Similarity', '--sql-allow-function', 'x').sqlAllowFunction).toEqual(
      ['crosstab', 'Similarity', 'x'],
    );
    expect(() => parse('--sql-allow-function', 'a b')).toThrow(/a function name, as PostgreSQL spells it/);
  });

  it('in a config file: sql: {allowFunctions} registers the tool with them; true and false as before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-db-sql-allow-'));
    const file = (text: string) => {
      const path = join(dir, `c${Math.random()}.yaml`);
      writeFileSync(path, text);
      return path;
    };
    const options = (text: string) => loadConfig(file(`url: sqlite:a.db\n${text}`), {}).options;
    expect(options('sql:\n  allowFunctions: [crosstab, similarity]\n')).toMatchObject({
      sql: true,
      sqlAllowFunction: ['crosstab', 'similarity'],
    });
    expect(options('sql: true\n')).toEqual({ sql: true });
    expect(options('sql: false\n')).toEqual({ sql: false });
    expect(() => options('sql:\n  allowFunction: [x]\n')).toThrow(/sql\.allowFunction: unknown key/);
  });

  it('without --sql it is a usage error', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [BIN, '--url', 'sqlite::memory:', '--sql-allow-function', 'crosstab'],
        { env: { PATH: process.env.PATH ?? '' } },
        (_e, _out, err) => resolve({ code: child.exitCode, stderr: err }),
      );
      child.stdin?.end();
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/--sql-allow-function \(sql\.allowFunctions\) applies to the sql tool: add --sql/);
  });
});

describe.runIf(target && admin)('PostgreSQL: the sql tool refuses what extensions and SQL in a string reach', () => {
  let dbUrl = '';
  let adminUrl = '';
  const servers: { role: string; mcp: HttpServer; client: Client }[] = [];
  /** a session of its own with a prepared statement, which no call may touch */
  let observer: pg.Client;

  /** Runs statements directly, as the superuser. */
  const asAdmin = async <T>(use: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client(adminUrl);
    await c.connect();
    try {
      return await use(c);
    } finally {
      await c.end();
    }
  };
  /** What no call may change: rows, extensions, the observer's session and its prepared statement. */
  const state = async () => ({
    rows: await asAdmin(
      async (c) =>
        (
          await c.query(
            `select (select count(*) from customers) as customers, (select count(*) from orders) as orders,
             (select count(*) from order_items) as items, (select count(*) from dblink_victim) as victim,
             (select string_agg(extname || ' ' || extversion, ', ' order by extname) from pg_extension) as extensions`,
          )
        ).rows[0],
    ),
    observer: (
      await observer.query(
        `select pg_backend_pid() as pid, statement from pg_prepared_statements where name = 'observer_stmt'`,
      )
    ).rows,
  });

  beforeAll(async () => {
    dbUrl = await freshDatabase(target!, 'bench_sql_deny');
    const u = new URL(admin!.baseUrl);
    u.pathname = new URL(dbUrl).pathname;
    adminUrl = u.toString();
    await loadShop(dbUrl);
    await asAdmin(async (c) => {
      for (const extension of ['tablefunc', 'xml2', 'dblink', 'hstore', 'pg_trgm', 'intarray'])
        await c.query(`create extension ${extension}`);
      await c.query(`create index orders_gin on orders using gin (to_tsvector('simple', status)) with (fastupdate = on);
        create index orders_brin on orders using brin (id);
        create table dblink_victim (id int); insert into dblink_victim values (1), (2), (3);
        grant all on dblink_victim to public`);
    });
    observer = new pg.Client(dbUrl);
    await observer.connect();
    await observer.query('prepare observer_stmt as select 42 as answer');
    for (const [role, url, args] of [
      ['least-privilege role', dbUrl, ['--sql', '--pool-size', '4']],
      ['superuser', adminUrl, privilegedServerArgs()],
    ] as const) {
      const mcp = await startHttpServer(url, [...args]);
      servers.push({
        role,
        mcp,
        client: await connectClient('http', 'modern', { dbUrl: url, endpoint: mcp.endpoint }),
      });
    }
  }, 120_000);
  afterAll(async () => {
    for (const { client, mcp } of servers) {
      await client.close();
      await mcp.stop();
    }
    await observer?.end();
  });

  it('the channels are real: run directly, crosstab2 reads a host file as a superuser and dblink_exec deletes inside a read-only transaction', async () => {
    const read = await asAdmin((c) =>
      c.query(`select * from crosstab2($$select 'r'::text, 'c'::text, pg_read_file('/etc/passwd')$$)`),
    );
    expect(JSON.stringify(read.rows)).toContain(PASSWD);
    // the least-privilege role may call it too (tablefunc's functions are open to PUBLIC)
    const bench = new pg.Client(dbUrl);
    await bench.connect();
    try {
      const rows = (await bench.query(`select * from crosstab2($$select 'r'::text, 'c'::text, 'v'::text$$)`)).rows;
      expect(rows).toEqual([{ row_name: 'r', category_1: 'v', category_2: null }]);
    } finally {
      await bench.end();
    }
    // DeepSQL #112: the new connection is not the read-only transaction's
    await asAdmin(async (c) => {
      await c.query('begin read only');
      await c.query(`select dblink_exec($1, 'delete from dblink_victim where id = 3')`, [conninfo(adminUrl)]);
      await c.query('commit');
      expect(Number((await c.query('select count(*) as n from dblink_victim')).rows[0].n)).toBe(2);
      await c.query('insert into dblink_victim values (3)');
    });
  }, 30_000);

  it.each([0, 1])(
    'each attack is refused, saying what and how to allow it, and nothing changes (server %i)',
    async (i) => {
      const { role, client } = servers[i]!;
      const before = await state();
      const list = attacks(i === 0 ? dbUrl : adminUrl);
      const failures: string[] = [];
      for (const a of list) {
        const out = await callJson(client, 'sql', { sql: a.text });
        const error = (out.data as { error?: { code: string; message: string } }).error;
        const said = JSON.stringify(out.data);
        if (said.includes(PASSWD))
          failures.push(`${a.what}: ${a.text}: the answer holds the file: ${said.slice(0, 200)}`);
        if (!out.isError || !error) failures.push(`${a.what}: ${a.text}: accepted: ${said.slice(0, 200)}`);
        else if (!error.message.toLowerCase().includes(a.names.toLowerCase()))
          failures.push(`${a.what}: ${a.text}: does not name ${a.names}: ${error.message}`);
        else if (
          /not on the list|installed by the extension/.test(error.message) &&
          !error.message.includes('--sql-allow-function ')
        )
          failures.push(`${a.what}: ${a.text}: does not say how to allow it: ${error.message}`);
      }
      expect(failures, role).toEqual([]);
      expect(await state(), 'rows, extensions, another session and its prepared statement').toEqual(before);
      // The servers' own connections all answer (none was terminated or had its statements replaced).
      const gets = await Promise.all(
        Array.from({ length: 12 }, (_, k) => callJson(client, 'get', { table: 'customers', key: (k % 6) + 1 })),
      );
      expect(gets.filter((g) => g.isError)).toEqual([]);
      const direct = await asAdmin((c) => c.query('select id, name from customers where id <= 6 order by id'));
      for (const [k, g] of gets.entries()) {
        const row = (g.data as { row: { id: number; name: string } }).row;
        expect({ id: row.id, name: row.name }).toEqual(direct.rows[k % 6]);
      }
    },
    120_000,
  );

  it('XML on the list reads no file: an external entity stays unread', async () => {
    const doc = `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`;
    for (const { client } of servers)
      for (const text of [`select xpath('/x', '${doc}')::text as x`, `select xmlparse(document '${doc}')::text as x`]) {
        const out = await callJson(client, 'sql', { sql: text });
        expect(out.isError, JSON.stringify(out.data)).toBe(false);
        expect(JSON.stringify(out.data)).not.toContain(PASSWD);
      }
  });

  it('allowing a function is the operator’s choice, and it then runs: --sql-allow-function', async () => {
    const mcp = await startHttpServer(dbUrl, ['--sql', '--sql-allow-function', 'crosstab2']);
    try {
      const client = await connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint });
      const out = await callJson(client, 'sql', {
        sql: `select * from crosstab2($$select 'r'::text, 'c'::text, 'v'::text$$)`,
      });
      expect(out.isError, JSON.stringify(out.data)).toBe(false);
      expect((out.data as { rows: unknown[] }).rows).toEqual([{ row_name: 'r', category_1: 'v', category_2: null }]);
      // its siblings stay refused
      expect((await callJson(client, 'sql', { sql: "select * from crosstab3('select 1')" })).isError).toBe(true);
      expect(mcp.stderr()).toMatch(/sql: statements may also call crosstab2 \(--sql-allow-function\)/);
      await client.close();
    } finally {
      await mcp.stop();
    }
  }, 60_000);
});
