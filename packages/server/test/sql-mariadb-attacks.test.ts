import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnyDb, engineForUrl } from '@mcp-db-bench/engines';
import { engineOf, freshDatabase, type LiveTarget, liveTargets, privilegedTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * The attacks reported against this server's sql tool on MariaDB (issue 53), and the classes
 * reported against other MCP database servers, as the least-privilege login (MYSQL_URL) and as
 * one with every privilege, FILE included (MYSQL_ADMIN_URL). Each must be refused or fail, and
 * neither the database nor the host may change: no file in a directory the database could
 * write to, no named lock, no row changed, nothing of /etc/passwd in any answer.
 */

const isMysql = (t: LiveTarget) => t.baseUrl.includes('://') && engineOf(t).family === 'mysql';
const LOGINS = [
  ...liveTargets()
    .filter(isMysql)
    .map((t) => ({ ...t, login: 'least-privilege', privileged: false })),
  ...privilegedTargets()
    .filter(isMysql)
    .map((t) => ({ ...t, login: 'FILE and every other privilege', privileged: true })),
];

/**
 * The server's arguments for each login: the one place for what a privileged login needs to
 * start with --sql (issue 53 has the server refuse one unless the operator accepts it).
 */
const PRIVILEGED_LOGIN_ARGS: string[] = ['--sql-privileged-login'];
function serverArgs(privileged: boolean): string[] {
  return ['--sql', '--pool-size', '2', '--statement-timeout', '5000', ...(privileged ? PRIVILEGED_LOGIN_ARGS : [])];
}

const LOCK = 'mcp_db_bench_attack';

/** Statements that put a value in every place: as a column, inside a function, in a filter, beside text that looks like a comment. */
const TEMPLATES = [
  'select :v as v',
  'select :v as v, :w as w',
  'select concat(:v, :w) as v',
  'select id from customers where name = :v or email = :w',
  "select '--' as a, :v as v",
  "select '/*+' as a, :v as v, '*/' as b",
  "select '?' as q, :v as v",
  'select 1 as a -- \x7f\n, :v as v',
];

/** Values that ran as SQL when mysql2 wrote them into the text (issue 53), and their kin; `{dir}` is the watched directory. */
const VALUES = [
  "/*+ */ , load_file('/etc/passwd') /*",
  "*/ , load_file('/etc/passwd'), get_lock('mcp_db_bench_attack', 0) /*+",
  "--\x7f\n, load_file('/etc/passwd') -- ",
  "-- \n, get_lock('mcp_db_bench_attack', 0) -- ",
  "' , load_file('/etc/passwd'), '",
  "\\' , load_file('/etc/passwd') -- ",
  "' into outfile '{dir}/value-1' -- ",
  "1 into outfile '{dir}/value-2'",
  "\\'; select 1 into dumpfile '{dir}/value-3' -- ",
  '?',
  '??',
  ':w',
  '\\',
  '"',
];

/** `... 1.5into OUTFILE` and its kin: a number glued to INTO, or INTO behind a comment or control character. */
const OUTFILES = [
  "select 1.5into outfile '{dir}/n1'",
  "select 1e0into outfile '{dir}/n2'",
  "select .5into dumpfile '{dir}/n3'",
  "select 0.e1into outfile '{dir}/n4'",
  "select id from customers where id = 1.5into outfile '{dir}/n5'",
  "select 1/**/into/**/outfile '{dir}/n6'",
  "select 1 --\x7f\ninto outfile '{dir}/n7'",
  "select 1 -- \r'\ninto outfile '{dir}/n8' -- '",
  "select 0x31into outfile '{dir}/n9'",
  "select 1 into\toutfile '{dir}/n10'",
  "select 1e+0into outfile '{dir}/n11'",
  "select 1.5E-3into dumpfile '{dir}/n12'",
];

/** The classes reported against other MCP database servers, in MariaDB's dialect. */
const PUBLIC_CLASSES: Record<string, string[]> = {
  // a data-modifying statement hidden in read-only mode (MariaDB has no writable CTE)
  'hidden write': [
    'with x as (select 1) delete from customers',
    "with x as (select 1) update customers set name = 'x'",
    'select * from customers into @a, @b, @c, @d, @e, @f',
    "values (1) union select 1 into outfile '{dir}/w1'",
  ],
  // a leading comment that sends a statement down the driver's multi-statement path (pgEdge #196)
  'multi-statement': [
    '/* x */ select 1; delete from customers where id = 1',
    '-- x\nselect 1; delete from customers',
    'select 1;delete from customers',
    "select 1; select 1 into outfile '{dir}/m1'",
  ],
  // file functions, open to a login with FILE (pgEdge #220)
  files: [
    "select load_file('/etc/passwd') as f",
    'select LOAD_FILE(0x2f6574632f706173737764) as f',
    "select `load_file`('/etc/passwd') as f",
    "select load_file/**/('/etc/passwd') as f",
    "select * from customers into outfile '{dir}/f1'",
    "select 'x' into dumpfile '{dir}/f2'",
  ],
  // SQL in a string, run by the server (DBHub #349)
  'dynamic SQL': [
    "prepare s from 'delete from customers'",
    "execute immediate 'delete from customers'",
    "select 1; execute immediate 'delete from customers'",
    "set @q = 'delete from customers'",
    'call evil_procedure()',
    "do load_file('/etc/passwd')",
  ],
  // what MariaDB prepares besides queries: run, KILL ended another tool's connection and SET
  // STATEMENT lifted the time limit (the tool's own check and the guard each refuse them)
  'not a query': [
    'kill query 1',
    '(((kill 1)))',
    '/**/ kill connection 1',
    'set statement max_statement_time = 0 for select sleep(1)',
    "set password = password('x')",
    'use mysql',
    'call evil_procedure',
    'do sleep(1)',
    'handler customers open',
    "load data infile '/etc/passwd' into table customers",
  ],
  // stored functions and UDFs (lib_mysqludf_sys)
  'stored functions and UDFs': [
    'select evil_function() as f',
    'select `evil_function`() as f',
    'select {db}.evil_function() as f',
    'select evil_function/**/() as f',
    "select sys_exec('touch {dir}/u1') as f",
    "select sys_eval('id') as f",
  ],
};

describe.each(LOGINS)('MariaDB as a $login login: the sql tool', (target) => {
  const { baseUrl, privileged } = target;
  const engine = engineForUrl(baseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-attacks-'));
  let dbUrl = '';
  let database = '';
  let servers: HttpServer[] = [];
  let clients: Client[] = [];
  const answers: string[] = [];

  /** A statement on a connection of its own, as the test's login. */
  const direct = async <T>(run: (db: AnyDb) => Promise<T>): Promise<T> => {
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1 });
    try {
      return await run(db);
    } finally {
      await close();
    }
  };
  const state = () =>
    direct(async (db) => {
      const { rows } = await sql<{ n: unknown; h: unknown; l: unknown }>`select count(*) as n,
        sum(crc32(concat_ws('|', id, name, email, vip, balance, created_at))) as h,
        is_used_lock(${LOCK}) as l from customers`.execute(db);
      return JSON.stringify(rows[0]);
    });
  const fill = (text: string) => text.replaceAll('{dir}', dir).replaceAll('{db}', database);
  const call = async (client: Client, args: Record<string, unknown>) => {
    const out = await callJson(client, 'sql', args);
    answers.push(JSON.stringify(out.data));
    return out;
  };

  beforeAll(async () => {
    // the database server writes as its own user: the directory must let it
    chmodSync(dir, 0o777);
    dbUrl = await freshDatabase(target, `bench_sql_attacks_${privileged ? 'admin' : 'least'}`);
    database = new URL(dbUrl).pathname.slice(1);
    await loadShop(dbUrl);
    await direct(async (db) => {
      await sql`create function evil_function() returns int not deterministic no sql return get_lock(${LOCK}, 0)`.execute(
        db,
      );
      await sql`create procedure evil_procedure() modifies sql data delete from customers`.execute(db);
      await sql`create sequence attack_seq`.execute(db);
    });
    // the same server twice: as configured, and with a URL that asks mysql2 for multi-statements
    const many = `${dbUrl}${dbUrl.includes('?') ? '&' : '?'}multipleStatements=true`;
    servers = await Promise.all([dbUrl, many].map((url) => startHttpServer(url, serverArgs(privileged))));
    clients = await Promise.all(
      servers.map((s, i) => connectClient('http', 'modern', { dbUrl: i ? many : dbUrl, endpoint: s.endpoint })),
    );
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`(control) this login ${privileged ? 'can' : 'cannot'} write a file into the watched directory itself`, async () => {
    const control = join(dir, 'control');
    const wrote = await direct((db) => sql.raw(`select 1 into outfile '${control}'`).execute(db)).then(
      () => true,
      (error: { errno?: number }) => (error.errno === 1227 ? false : Promise.reject(error)), // FILE needed
    );
    expect(wrote).toBe(privileged);
    expect(existsSync(control)).toBe(privileged);
    rmSync(control, { force: true });
  });

  it(`refuses ${OUTFILES.length} spellings of ... INTO OUTFILE, and writes no file`, async () => {
    const before = await state();
    for (const text of OUTFILES.map(fill)) {
      const out = await call(clients[0]!, { sql: text });
      expect(out.isError, `${JSON.stringify(text)} -> ${JSON.stringify(out.data)}`).toBe(true);
    }
    expect(readdirSync(dir)).toEqual([]);
    expect(await state()).toBe(before);
  });

  it(`keeps every parameter value a value (${TEMPLATES.length} statements x ${VALUES.length} values)`, async () => {
    const before = await state();
    const wrong: string[] = [];
    for (const template of TEMPLATES)
      for (const raw of VALUES) {
        const [v, w] = [fill(raw), fill(`${raw}w`)];
        const out = await call(clients[0]!, { sql: template, params: { v, w } });
        const rows = (out.data as { rows?: Record<string, unknown>[] }).rows;
        if (out.isError || !rows) wrong.push(`${template} / ${JSON.stringify(v)}: ${JSON.stringify(out.data)}`);
        else if (template.includes('as v') && rows[0]?.v !== (template.includes('concat') ? v + w : v))
          wrong.push(`${template} / ${JSON.stringify(v)}: ${JSON.stringify(rows)}`);
        else if (template.includes('where') && rows.length) wrong.push(`${template}: matched ${JSON.stringify(rows)}`);
      }
    expect(wrong).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
    expect(await state()).toBe(before);
  });

  it.each(Object.entries(PUBLIC_CLASSES))(
    'refuses %s, on a URL with or without multipleStatements',
    async (_, texts) => {
      const before = await state();
      for (const client of clients)
        for (const text of texts.map(fill)) {
          const out = await call(client, { sql: text });
          expect(out.isError, `${JSON.stringify(text)} -> ${JSON.stringify(out.data)}`).toBe(true);
        }
      expect(readdirSync(dir)).toEqual([]);
      expect(await state()).toBe(before);
    },
  );

  it('refuses locking reads, which a read-only transaction lets hold row locks, and moves no sequence', async () => {
    // the control: MariaDB's read-only transaction refuses FOR UPDATE, not LOCK IN SHARE MODE, whose
    // locks make other sessions' writes wait until the statement ends (with SLEEP, its whole time limit)
    const blocked = await direct(async (db) =>
      db.connection().execute(async (reader) => {
        await sql`start transaction read only`.execute(reader);
        try {
          await sql`select id from customers where id = 1 lock in share mode`.execute(reader);
          const { db: other, close } = await engine.connect(dbUrl, { poolSize: 1 });
          try {
            return await other.connection().execute(async (writer) => {
              await sql`set innodb_lock_wait_timeout = 1`.execute(writer);
              return sql`update customers set name = name where id = 1`.execute(writer).then(
                () => 0,
                (error: { errno?: number }) => error.errno,
              );
            });
          } finally {
            await close();
          }
        } finally {
          await sql`rollback`.execute(reader);
        }
      }),
    );
    expect(blocked, 'a write waits for the share lock of a read-only transaction').toBe(1205);
    const sequence = () =>
      direct(
        async (db) => (await sql<{ v: unknown }>`select next_not_cached_value as v from attack_seq`.execute(db)).rows,
      );
    const [before, seqBefore] = [await state(), await sequence()];
    const texts = [
      'select id from customers lock in share mode',
      'select id, sleep(1) from customers LOCK /**/ IN -- \n SHARE\tMODE',
      'select 1 as x from dual where exists (select 1 from customers lock in share mode)',
      '(select id from customers) union (select id from customers lock in share mode)',
      'select id from customers where id = 1 for update',
      'select id from customers for share',
      'select next value for attack_seq as v',
      'select nextval(attack_seq) as v',
      'select * from customers procedure analyse()',
    ];
    for (const text of texts) {
      const out = await call(clients[0]!, { sql: text });
      expect(out.isError, `${JSON.stringify(text)} -> ${JSON.stringify(out.data)}`).toBe(true);
    }
    const said = (text: string) => call(clients[0]!, { sql: text }).then((o) => JSON.stringify(o.data));
    expect(await said(texts[0]!)).toMatch(/LOCK IN SHARE MODE is not allowed: it locks rows/);
    expect(await state()).toBe(before);
    expect(await sequence()).toEqual(seqBefore);
  });

  it("the engine's guard refuses what is not a query on its own, however the text begins", () => {
    const guard = (text: string) => () =>
      engine.sqlGuard!(undefined as unknown as AnyDb, text, { allowFunctions: new Set() });
    for (const text of PUBLIC_CLASSES['not a query']!)
      expect(guard(text), text).toThrow(/is not allowed: only a query \(SELECT, WITH ... SELECT, VALUES\) runs here/);
    for (const text of [
      'select 1',
      ' (( select 1))',
      '/* c */ with x as (select 1) select * from x',
      '-- c\nvalues (1)',
    ])
      expect(guard(text), text).not.toThrow();
  });

  it('names the way to allow a stored function, and still answers', async () => {
    const out = await call(clients[0]!, { sql: 'select evil_function() as f' });
    expect((out.data as { error: { message: string } }).error.message).toMatch(
      /EVIL_FUNCTION is not allowed: .*--sql-allow-function evil_function/,
    );
    const ok = await call(clients[0]!, {
      sql: 'select count(*) as n from customers where id > :min',
      params: { min: 0 },
    });
    expect(ok.isError, JSON.stringify(ok.data)).toBe(false);
  });

  it('no answer carried the host file, and no file or lock is left', async () => {
    expect(answers.length).toBeGreaterThan(100);
    expect(answers.filter((a) => a.includes('root:'))).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
    expect(JSON.parse(await state()).l).toBeNull();
  });
});
