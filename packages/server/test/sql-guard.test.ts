import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError } from '@mcp-db-bench/contract';
import {
  type AnyDb,
  DEFAULT_SQL_POLICY,
  ENGINES,
  engineForUrl,
  mssql,
  mysql,
  type SqlFamily,
  type SqlPolicy,
  sqlite,
} from '@mcp-db-bench/engines';
import { testDatabasesOf, testFactsOf } from '@mcp-db-bench/engines/testing';
import { freshDatabase, type LiveTarget, liveTargets, privilegedTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * The sql tool reads rows and nothing else: what a read-only transaction lets through (files on
 * the database host, named and advisory locks, other sessions, server settings) is refused before
 * it runs. Proved against a PRIVILEGED user (PG_ADMIN_URL: a superuser; MYSQL_ADMIN_URL: every
 * privilege, FILE included), for whom the database itself would allow each statement: a control
 * shows that user can write and read a file on the database host, and then no hostile statement
 * leaves a file, a lock, or a change to the server's own pooled connection.
 */

interface SqlText {
  category: string;
  text: string;
  /** SQL families where the sql tool must refuse it */
  refusedOn?: SqlFamily[];
  /** what the refusal's message names */
  names?: string;
  /** the refusal's code, where it is not the guard's (invalid_argument) or the query check's (read_only) */
  code?: string;
}
const CORPUS_FILE = fileURLToPath(new URL('../../../fixtures/attacks/injection.json', import.meta.url));
const SQL_TEXTS = (JSON.parse(readFileSync(CORPUS_FILE, 'utf8')) as { sqlTexts: SqlText[] }).sqlTexts;

describe('guards, without a database', () => {
  const db = undefined as unknown as AnyDb;
  const refused = (guard: (db: AnyDb, text: string, policy: SqlPolicy) => unknown, text: string) => {
    try {
      guard(db, text, DEFAULT_SQL_POLICY);
    } catch (error) {
      expect(error, text).toBeInstanceOf(ToolError);
      expect((error as ToolError).code).toBe('invalid_argument');
      return (error as ToolError).message;
    }
    return undefined;
  };

  it('every engine with a sql runner has a guard', () => {
    for (const engine of ENGINES) if (engine.readOnlyStatement) expect(engine.sqlGuard, engine.name).toBeDefined();
  });

  it('MySQL: reads the text as MySQL does (backslashes, `-- `, #, version comments, ANSI quotes, numbers) and calls only known built-ins', () => {
    const guard = mysql.sqlGuard!;
    for (const ok of [
      "select 'load_file' as t",
      "select ':' = 'x'",
      'select 1 -- load_file(',
      'select 1 # get_lock(',
      "select 'a\\'load_file'",
      'select /* into outfile */ 1',
      'select ? as v',
      "select '?', ?",
      'select sleep(0)',
      // a name that is no call: a column may be called get_lock
      'select "get_lock"',
      'select get_lock from t',
    ]) {
      expect(refused(guard, ok), ok).toBeUndefined();
    }
    expect(refused(guard, 'select 1--1, load_file(0)')).toMatch(
      /LOAD_FILE is not allowed: it reads a file on the database host/,
    );
    expect(refused(guard, 'select 1 --\u00a0load_file(0)')).toMatch(/LOAD_FILE/);
    // The server reads a line comment to the newline, past a carriage return; DEL after -- opens one.
    expect(refused(guard, "select 1 -- \r'\n, load_file(0) -- '")).toMatch(/LOAD_FILE/);
    expect(refused(guard, "select 1 # \r'\n, load_file(0) -- '")).toMatch(/LOAD_FILE/);
    expect(refused(guard, "select 1 --\x7f'\n, load_file(0) -- '")).toMatch(/LOAD_FILE/);
    expect(refused(guard, 'select 1 --\x7f load_file(0)')).toBeUndefined();
    expect(refused(guard, 'select 1 \x01')).toMatch(/a control character outside a string/);
    expect(refused(guard, "select '\x01' -- \x01")).toBeUndefined();
    expect(refused(guard, "select 'x\\', load_file(0) -- '")).toBeUndefined(); // all one string
    expect(refused(guard, "select '\\'', load_file(0) -- '")).toMatch(/LOAD_FILE/);
    expect(refused(guard, 'select `get_lock`(1, 0)')).toMatch(/GET_LOCK is not allowed: named locks/);
    expect(refused(guard, 'select "get_lock"(1, 0)')).toMatch(/GET_LOCK/);
    expect(refused(guard, 'select "a\\"b"')).toMatch(/backslash in double quotes/);
    expect(refused(guard, "select 1 into outfile 'x'")).toMatch(
      /INTO OUTFILE is not allowed: it writes a file on the database host/,
    );
    expect(refused(guard, "select 1 INTO\nDUMPFILE 'x'")).toMatch(/INTO DUMPFILE/);
    // MariaDB ends a number where its digits end: `1.5into` is 1.5 and INTO
    expect(refused(guard, "select 1.5into outfile 'x'")).toMatch(/INTO OUTFILE/);
    expect(refused(guard, 'select 1 into @v')).toMatch(/SELECT \.\.\. INTO is not allowed/);
    expect(refused(guard, 'select @v := 1')).toMatch(/:=/);
    expect(refused(guard, 'select 1 /*!50000 + 1 */')).toMatch(/executable comment/);
    expect(refused(guard, 'select 1 /*M!100000 + 1 */')).toMatch(/executable comment/);
    expect(refused(guard, 'select /*+ MAX_EXECUTION_TIME(0) */ 1')).toMatch(/optimizer hint/);
    expect(refused(guard, 'select take_lock()')).toMatch(
      /the function TAKE_LOCK is not allowed: .*--sql-allow-function take_lock/,
    );
    expect(refused(guard, "select 'open")).toMatch(/unclosed string/);
    expect(refused(guard, 'select 1 /* open')).toMatch(/unclosed comment/);
  });

  it('SQLite: refuses loading code and reaching files, whatever the quoting', () => {
    const guard = sqlite.sqlGuard!;
    for (const ok of [
      "select 'load_extension'",
      'select 1 -- attach',
      "select * from pragma_table_info('t')",
      'select 1 /* open comment runs to the end',
    ]) {
      expect(refused(guard, ok), ok).toBeUndefined();
    }
    expect(refused(guard, "select load_extension('x')")).toMatch(/LOAD_EXTENSION is not allowed: it loads native code/);
    expect(refused(guard, "select [load_extension]('x')")).toMatch(/LOAD_EXTENSION/);
    expect(refused(guard, 'select "readfile"(1)')).toMatch(/READFILE/);
    expect(refused(guard, "select 1) , (select writefile('x', 1)")).toMatch(/WRITEFILE/);
    expect(refused(guard, "select 1 -- \r'\n, load_extension('x') -- '")).toMatch(/LOAD_EXTENSION/);
  });

  it('SQL Server (no sql tool there): refuses procedures, ad hoc remote reads, bulk files and app locks', () => {
    expect(mssql.readOnlyStatement).toBeUndefined();
    const guard = mssql.sqlGuard!;
    for (const ok of [
      "select 'xp_cmdshell' as t",
      'select 1 -- exec xp_cmdshell',
      'select 1 /* /* nested */ exec */',
      'select [name] from sys.tables',
    ]) {
      expect(refused(guard, ok), ok).toBeUndefined();
    }
    expect(refused(guard, "exec xp_cmdshell 'dir'")).toMatch(/EXEC is not allowed/);
    expect(refused(guard, "select * from openrowset(bulk 'c:\\x', single_clob) as t")).toMatch(
      /OPENROWSET is not allowed/,
    );
    expect(refused(guard, "select * from opendatasource('SQLNCLI', 'Data Source=x').db.dbo.t")).toMatch(
      /OPENDATASOURCE/,
    );
    expect(refused(guard, "select * from openquery(srv, 'select 1')")).toMatch(/OPENQUERY/);
    expect(refused(guard, 'select [xp_cmdshell]')).toMatch(/XP_CMDSHELL is not allowed: extended procedures/);
    expect(refused(guard, "select 1; exec sp_getapplock 'x', 'Exclusive'")).toMatch(/EXEC/);
    expect(refused(guard, 'select sp_getapplock')).toMatch(/SP_GETAPPLOCK is not allowed: system procedures/);
    expect(refused(guard, 'select * into evil from t')).toMatch(/INTO is not allowed/);
    expect(refused(guard, 'select 1 /* /* */ exec x */ ; exec x')).toMatch(/EXEC/);
    expect(refused(guard, "select 1 -- \r'\n, 1 -- '")).toMatch(/a carriage return in a line comment/);
  });
});

describe('the start-up check names excess rights, and only those', () => {
  it.each(ENGINES.filter((e) => e.excessRights))('$name: compiles, and asks for what it warns of', async (engine) => {
    const sent: string[] = [];
    const db = new Kysely({
      dialect: engine.compileOnlyDialect(),
      log: (e) => {
        sent.push(e.query.sql);
      },
    }) as AnyDb;
    // A dialect that never connects answers no rows: no warning.
    expect(await engine.excessRights!(db)).toBeUndefined();
    expect(sent.join('\n')).toMatch(testFactsOf(engine).excessRights!.asks);
  });

  const isServer = (t: LiveTarget) => t.baseUrl.includes('://');
  const admins = privilegedTargets().filter(isServer);
  // the suites' ordinary users, on the servers that also have a privileged one (.ci/run grants them no more than their databases)
  const ordinary = liveTargets().filter((t) => isServer(t) && testDatabasesOf(engineForUrl(t.baseUrl))?.adminEnv);
  const rightsOf = async (url: string) => {
    const engine = engineForUrl(url);
    const { db, close } = await engine.connect(url, { poolSize: 1 });
    try {
      return await engine.excessRights!(db);
    } finally {
      await close();
    }
  };
  it.each(admins)('$engine: the privileged user', async (target) => {
    const { excessRights } = testFactsOf(engineForUrl(target.baseUrl));
    expect((await rightsOf(target.baseUrl))?.rights).toEqual(excessRights?.ofAdmin);
  });
  it.each(ordinary)('$engine: the ordinary user', async (target) => {
    expect(await rightsOf(target.baseUrl)).toBeUndefined();
  });
});

describe.each(privilegedTargets())('$engine as a privileged user', (target) => {
  const engine = engineForUrl(target.baseUrl);
  const family = engine.family;
  const probe = testFactsOf(engine).hostProbe;
  // A server engine: its files and locks can be looked at beside the running MCP server.
  const server = target.baseUrl.includes('://');
  const hostile = SQL_TEXTS.filter((s) => s.refusedOn?.includes(family));
  if (probe?.extraHostile) hostile.push({ category: 'family', ...probe.extraHostile });
  const file = join(tmpdir(), `mcp-db-bench-guard-${randomUUID()}.txt`);
  let dbUrl = '';
  let mcp: HttpServer;
  let client: Client;

  /** Runs statements on a direct connection as the privileged user. */
  const direct = async <T>(run: (db: AnyDb) => Promise<T>): Promise<T> => {
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1 });
    try {
      return await run(db);
    } finally {
      await close();
    }
  };
  const present = async (path: string) =>
    Boolean(Number((await direct((db) => probe!.fileExists(path).execute(db))).rows[0]?.present));

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_sql_guard');
    await loadShop(dbUrl);
    if (server && probe)
      await direct(async (db) => {
        for (const ddl of probe.lockingFunction) await sql.raw(ddl).execute(db);
      });
    // One pooled connection for the sql tool (and one for the others), so every call shows whether
    // that connection survived; a privileged login on purpose, which --sql refuses unless told.
    // take_lock is the database's own function, which the guard refuses until it is allowed.
    mcp = await startHttpServer(dbUrl, [
      '--sql',
      '--sql-privileged-login',
      '--sql-allow-function',
      'take_lock',
      '--pool-size',
      '1',
      '--sql-pool-size',
      '1',
      '--statement-timeout',
      '5000',
    ]);
    client = await connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await mcp?.stop();
    rmSync(file, { force: true });
  });

  it.runIf(server)('warns at start-up that the user has more rights than it needs', () => {
    expect(mcp.stderr()).toMatch(
      /WARNING: connected as \S+, which has (superuser|FILE, SUPER): more than this server needs; use a least-privilege user/,
    );
  });

  it(`refuses each of its hostile statements (${hostile.length}) with a clear error, and nothing reaches the host or outlives the call`, async () => {
    expect(hostile.length).toBeGreaterThan(5);
    const id = async () => {
      const out = await callJson(client, 'sql', { sql: probe!.connectionId });
      expect(out.isError, JSON.stringify(out.data)).toBe(false);
      return String((out.data as { rows: { id: unknown }[] }).rows[0]!.id);
    };
    const before = probe ? await id() : undefined;
    if (server) {
      // The control: this user can write a file on the database host and see it there.
      const control = join(tmpdir(), `mcp-db-bench-guard-control-${randomUUID()}.txt`);
      await direct((db) => probe!.writeFile(control).execute(db));
      expect(await present(control), 'the privileged user can write a file on the database host').toBe(true);
      rmSync(control, { force: true });
    }

    const failures: string[] = [];
    for (const s of hostile) {
      const text = s.text.replaceAll('{file}', file);
      const out = await callJson(client, 'sql', { sql: text, params: { v: 'x' } });
      const error = (out.data as { error?: { code: string; message: string } }).error;
      if (!out.isError || !error) failures.push(`${text}: accepted: ${JSON.stringify(out.data).slice(0, 200)}`);
      else if (!(s.code ? [s.code] : ['invalid_argument', 'read_only']).includes(error.code))
        failures.push(`${text}: ${error.code}: ${error.message}`);
      else if (!error.message.toLowerCase().includes(s.names!.toLowerCase()))
        failures.push(`${text}: the message does not name ${s.names}: ${error.message}`);
    }
    // soft: the checks below say what a statement that got through did
    expect.soft(failures).toEqual([]);

    expect.soft(existsSync(file), 'no file on this machine').toBe(false);
    if (server) {
      expect.soft(await present(file), 'no file on the database host').toBe(false);
      expect.soft(Number((await direct((db) => probe!.locksHeld().execute(db))).rows[0]?.n), 'no lock held').toBe(0);
    }
    // The server's own connection is the one it had: no statement ended or replaced it.
    if (before !== undefined) expect.soft(await id()).toBe(before);
    const got = await callJson(client, 'get', { table: 'customers', key: 1 });
    expect(got.isError, JSON.stringify(got.data)).toBe(false);
  }, 60_000);

  it.runIf(server && probe)(
    "releases a lock taken out of the guard's sight, in a function the database defines, when the call ends",
    async () => {
      const out = await callJson(client, 'sql', { sql: 'select take_lock() as locked' });
      expect(out.isError, JSON.stringify(out.data)).toBe(false);
      expect(Number((out.data as { rows: { locked: unknown }[] }).rows[0]!.locked)).toBe(1);
      expect(Number((await direct((db) => probe!.locksHeld().execute(db))).rows[0]?.n)).toBe(0);
    },
    30_000,
  );
});
