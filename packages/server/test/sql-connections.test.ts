import { type AnyDb, type Connection, engineForUrl } from '@mcp-db-bench/engines';
import { testFactsOf } from '@mcp-db-bench/engines/testing';
import { engineOf, freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from './support/agents.js';
import { type CallOutcome, callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * The sql tool runs on connections of its own (Engine.connectSql): never on one that get, query,
 * aggregate or the writes use, each session reset after every call, a few of them with a wait
 * limit. What a caller's statement does to its session (prepared statements, settings, locks, a
 * long sleep) reaches no other call's answer. Shown on the live servers directly (backend ids,
 * prepared statements, what is left on a session), so that it holds whatever the guard refuses.
 */

const serverTargets = (family: string) =>
  liveTargets().filter((t) => t.baseUrl.includes('://') && engineOf(t).family === family);

/** The rows of a successful sql call. */
async function sqlRows(client: Client, text: string): Promise<Record<string, unknown>[]> {
  const out = await callJson(client, 'sql', { sql: text });
  expect(out.isError, JSON.stringify(out.data)).toBe(false);
  return (out.data as { rows: Record<string, unknown>[] }).rows;
}

const errorOf = (out: CallOutcome) => (out.data as { error?: { code: string; message: string } }).error;

/** Runs `work` on a connection of the suites' own user to the test database, then closes it. */
async function direct<T>(dbUrl: string, work: (db: AnyDb) => Promise<T>): Promise<T> {
  const { db, close } = await engineForUrl(dbUrl).connect(dbUrl, { poolSize: 1 });
  try {
    return await work(db);
  } finally {
    await close();
  }
}

/** The sql tool's connections of `dbUrl`'s engine, opened as the server opens them, for a look at one session. */
async function sqlConnection(dbUrl: string, poolSize = 1): Promise<{ sqlDb: AnyDb; close(): Promise<void> }> {
  const engine = engineForUrl(dbUrl);
  const main: Connection = await engine.connect(dbUrl, { poolSize: 2, readOnly: true });
  const own = await engine.connectSql!(dbUrl, { poolSize, poolWaitMs: 2_000, statementTimeoutMs: 10_000 }, main);
  return {
    sqlDb: own.db,
    close: async () => {
      await own.close();
      await main.close();
    },
  };
}

describe.each(serverTargets('postgres'))('$engine: the sql tool has sessions of its own', (target) => {
  let dbUrl = '';
  let mcp: HttpServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_sql_connections');
    await loadShop(dbUrl);
    await direct(dbUrl, async (db) => {
      // What the round-two attack did through a function that runs SQL: replace the server's named
      // statements (mcp_N) with its own, in the session it runs in. Plain PL/pgSQL here: the guard
      // sees only the function's name, so the test shows what the connections isolate.
      await sql`create function replace_statements() returns integer language plpgsql volatile as $$
        begin
          for i in 1..40 loop
            begin execute format('deallocate mcp_%s', i); exception when others then null; end;
            execute format('prepare mcp_%s(int) as select $1 as id, %L as name', i, 'attacker');
          end loop;
          return 40;
        end $$`.execute(db);
    });
    // replace_statements is the database's own function, which the guard refuses until it is allowed:
    // allowed here, so the attack runs and the isolation is what stops it.
    mcp = await startHttpServer(dbUrl, [
      '--sql',
      '--sql-allow-function',
      'replace_statements',
      '--pool-size',
      '4',
      '--sql-pool-size',
      '2',
    ]);
    for (let i = 0; i < 10; i++) clients.push(await connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await mcp?.stop();
  });

  /** The backends of one of the server's pools, as pg_stat_activity names them. */
  const backends = (applicationName: string) =>
    direct(dbUrl, async (db) => {
      const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity
        where datname = current_database() and application_name = ${applicationName}`.execute(db);
      return new Set(rows.map((r) => Number(r.pid)));
    });

  it('many clients read the table while sql calls replace prepared statements: 0 answers differ', async () => {
    const expected = await direct(dbUrl, async (db) => {
      const { rows } = await sql<{ id: number; name: string }>`select id, name from customers order by id`.execute(db);
      return new Map(rows.map((r) => [Number(r.id), r.name]));
    });
    const readers = clients.slice(0, 8);
    const attackers = clients.slice(8);
    // 4 s, and on a loaded machine until 500 answers and 20 attacks are in (at most 40 s)
    const started = performance.now();
    let answers = 0;
    const outcomes: string[] = [];
    const going = () =>
      performance.now() - started < 40_000 &&
      (performance.now() - started < 4_000 || answers < 500 || outcomes.length < 20);
    const differ: string[] = [];
    const read = async (client: Client, offset: number) => {
      for (let i = offset; going(); i++) {
        const key = (i % expected.size) + 1;
        const out = await callJson(client, 'get', { table: 'customers', key });
        const row = (out.data as { row?: { id: number; name: string } }).row;
        answers++;
        if (out.isError || row?.name !== expected.get(key)) differ.push(`${key}: ${JSON.stringify(out.data)}`);
      }
    };
    const attack = async (client: Client) => {
      while (going()) {
        const out = await callJson(client, 'sql', { sql: 'select replace_statements() as n' });
        outcomes.push(out.isError ? `refused: ${errorOf(out)?.message}` : 'ran');
      }
    };
    await Promise.all([...readers.map((c, i) => read(c, i * 3)), ...attackers.map(attack)]);
    expect(differ.length, differ.slice(0, 5).join('\n')).toBe(0);
    expect(answers).toBeGreaterThanOrEqual(500);
    expect(outcomes.length).toBeGreaterThanOrEqual(20);
    // Allowed, the attack runs every time, in the sql tool's own sessions.
    const refused = outcomes.filter((o) => o !== 'ran');
    expect(refused, refused[0]).toEqual([]);
    console.log(
      `sql-connections: ${answers} get answers, 0 differ, while ${outcomes.length} sql calls tried to replace mcp_N (${outcomes.length - refused.length} ran)`,
    );
  }, 60_000);

  it("from sql, pg_backend_pid() is never a structured pool's backend, and none of its mcp_N statements is there", async () => {
    // the structured pool at work first, so that its backends exist and have named statements
    await Promise.all(clients.map((c, i) => callJson(c, 'get', { table: 'orders', key: i + 1 })));
    const pool = await backends('mcp-db-server');
    expect(pool.size).toBeGreaterThan(0);
    const seen = new Set<number>();
    for (let round = 0; round < 5; round++) {
      const rows = await Promise.all(
        clients.map((c) =>
          sqlRows(
            c,
            "select pg_backend_pid() as pid, (select count(*) from pg_prepared_statements where name like 'mcp%') as named",
          ),
        ),
      );
      for (const [row] of rows) {
        seen.add(Number(row!.pid));
        expect(Number(row!.named)).toBe(0);
      }
    }
    const own = await backends('mcp-db-server sql');
    expect([...seen].filter((pid) => pool.has(pid))).toEqual([]);
    expect([...seen].filter((pid) => !own.has(pid))).toEqual([]);
    expect(own.size).toBeLessThanOrEqual(2);
  }, 60_000);

  it('a prepared statement, a setting or a lock left on a session is gone before the next call has it', async () => {
    const { sqlDb, close } = await sqlConnection(dbUrl);
    try {
      // Outside any transaction, as nothing the tool runs is: the strongest a statement could leave.
      const first = await sqlDb.connection().execute(async (conn) => {
        await sql`prepare leftover as select 42`.execute(conn);
        await sql`select set_config('app.leftover', 'x', false), pg_advisory_lock(4242)`.execute(conn);
        await sql`set statement_timeout = 1`.execute(conn);
        return (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn)).rows[0]!.pid;
      });
      const { rows } = await sql<Record<string, unknown>>`select pg_backend_pid() as pid,
          (select count(*) from pg_prepared_statements) as prepared,
          coalesce(current_setting('app.leftover', true), '') as setting,
          (select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()) as locks,
          current_setting('statement_timeout') as timeout,
          current_setting('default_transaction_read_only') as read_only`.execute(sqlDb);
      // the same session (one connection), and nothing of the last caller's on it: the server's own settings again
      expect(rows[0]).toEqual({ pid: first, prepared: '0', setting: '', locks: '0', timeout: '10s', read_only: 'on' });
    } finally {
      await close();
    }
  }, 30_000);
});

describe.each(serverTargets('mysql'))('$engine: the sql tool has sessions of its own', (target) => {
  let dbUrl = '';
  let mcp: HttpServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_sql_connections');
    await loadShop(dbUrl);
    await direct(dbUrl, async (db) => {
      await sql`create function leave_state() returns int not deterministic no sql begin
          set @leak = 42;
          return get_lock('mcp_db_bench_connections', 0);
        end`.execute(db);
    });
    mcp = await startHttpServer(dbUrl, ['--sql', '--pool-size', '4', '--sql-pool-size', '2']);
    for (let i = 0; i < 6; i++) clients.push(await connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await mcp?.stop();
  });

  it("from sql, connection_id() is never one of the other tools' connections", async () => {
    await Promise.all(clients.map((c, i) => callJson(c, 'get', { table: 'orders', key: i + 1 })));
    // Before the first sql call, which opens the sql tool's first connection: every one here is the other tools'.
    const pool = await direct(dbUrl, async (db) => {
      const { rows } = await sql<{ id: number }>`select id from information_schema.processlist
        where db = database() and id <> connection_id()`.execute(db);
      return new Set(rows.map((r) => Number(r.id)));
    });
    expect(pool.size).toBeGreaterThan(0);
    const seen = new Set<number>();
    for (let round = 0; round < 5; round++) {
      for (const [row] of await Promise.all(clients.map((c) => sqlRows(c, 'select connection_id() as id'))))
        seen.add(Number(row!.id));
    }
    expect([...seen].filter((id) => pool.has(id))).toEqual([]);
    expect(seen.size).toBeLessThanOrEqual(2);
    const got = await callJson(clients[0]!, 'get', { table: 'customers', key: 1 });
    expect(got.isError, JSON.stringify(got.data)).toBe(false);
  }, 60_000);

  it('a user variable or a named lock left by one sql call does not survive into the next', async () => {
    const { sqlDb, close } = await sqlConnection(dbUrl);
    const { readOnlyStatement } = engineForUrl(dbUrl);
    try {
      const [left] = await readOnlyStatement!(sqlDb, sql`select leave_state() as s, connection_id() as id`, 10);
      expect(Number(left!.s)).toBe(1);
      const [seen] = await readOnlyStatement!(
        sqlDb,
        sql`select @leak is null as unset, is_used_lock('mcp_db_bench_connections') as holder, connection_id() as id`,
        10,
      );
      // the same connection (one of them), reset: no variable, no lock
      expect(seen).toEqual({ unset: 1, holder: null, id: left!.id });
    } finally {
      await close();
    }
  }, 30_000);
});

/** How each engine sleeps for 20 s, in the sql tool. */
const SLEEP_20: Record<string, string> = {
  postgres: 'select pg_sleep(20) as slept',
  mysql: 'select sleep(20) as slept',
};

describe.each(liveTargets().filter((t) => t.baseUrl.includes('://') && SLEEP_20[engineOf(t).family]))(
  '$engine: ten sql calls that sleep 20 s',
  (target) => {
    const WAIT_MS = 1_000;
    const TIMEOUT_MS = 6_000;
    let dbUrl = '';
    let mcp: HttpServer;

    beforeAll(async () => {
      dbUrl = await freshDatabase(target, 'bench_sql_sleepers');
      await loadShop(dbUrl);
      // The statement timeout keeps the test short; the wait limit answers the calls beyond the pool.
      mcp = await startHttpServer(dbUrl, [
        '--sql',
        '--sql-pool-size',
        '3',
        '--sql-wait-timeout',
        String(WAIT_MS),
        '--statement-timeout',
        String(TIMEOUT_MS),
      ]);
    }, 60_000);
    afterAll(async () => {
      await mcp?.stop();
    });

    it('get keeps answering; the calls beyond the pool get the wait limit, the others the timeout', async () => {
      const sleepers = await Promise.all(
        Array.from({ length: 10 }, () => connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint })),
      );
      const reader = await connectClient('http', 'legacy', { dbUrl, endpoint: mcp.endpoint });
      try {
        const statement = SLEEP_20[engineForUrl(dbUrl).family]!;
        let settled = 0;
        const calls = sleepers.map((c) =>
          callJson(c, 'sql', { sql: statement }).finally(() => {
            settled++;
          }),
        );
        await sleep(200);
        // Until the wait-limit answers are in (after WAIT_MS) and 20 reads have come back: the
        // three that got a connection sleep on meanwhile (to the statement timeout).
        let answered = 0;
        let whileAllRan = 0;
        while (answered < 400 && (settled < 7 || answered < 20)) {
          const got = await callJson(reader, 'get', { table: 'customers', key: (answered % 24) + 1 });
          expect(got.isError, JSON.stringify(got.data)).toBe(false);
          answered++;
          if (settled < 10) whileAllRan++;
          await sleep(20);
        }
        expect(whileAllRan).toBeGreaterThan(10);
        const outcomes = (await Promise.all(calls)).map((o) => errorOf(o)?.code ?? 'answered');
        expect(outcomes.sort()).toEqual([...Array(7).fill('limit_exceeded'), ...Array(3).fill('timeout')]);
        const waited = errorOf(await callJson(sleepers[0]!, 'sql', { sql: 'select 1 as one' }));
        expect(waited).toBeUndefined();
      } finally {
        await Promise.all([...sleepers, reader].map((c) => c.close()));
      }
    }, 60_000);

    it('the wait-limit error names its option', async () => {
      const sleepers = await Promise.all(
        Array.from({ length: 4 }, () => connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint })),
      );
      try {
        const statement = SLEEP_20[engineForUrl(dbUrl).family]!;
        const outcomes = await Promise.all(sleepers.map((c) => callJson(c, 'sql', { sql: statement })));
        const waited = outcomes.map(errorOf).find((e) => e?.code === 'limit_exceeded');
        expect(waited?.message).toMatch(
          /all 3 of the sql tool's connections stayed busy for 1000 ms \(--sql-wait-timeout\).*--sql-pool-size/,
        );
      } finally {
        await Promise.all(sleepers.map((c) => c.close()));
      }
    }, 60_000);
  },
);

describe.each(liveTargets().filter((t) => t.engine === 'sqlite'))('$engine: runaway sql queries', (target) => {
  const WAIT_MS = 1_000;
  let dbUrl = '';
  let mcp: HttpServer;

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_sql_runaway');
    await loadShop(dbUrl);
    // A statement timeout far beyond the test: only the wait limit can answer the fourth call.
    mcp = await startHttpServer(dbUrl, [
      '--sql',
      '--sql-pool-size',
      '3',
      '--sql-wait-timeout',
      String(WAIT_MS),
      '--statement-timeout',
      '120000',
    ]);
  }, 60_000);
  afterAll(async () => {
    await mcp?.stop();
  });

  it('select 1 behind three runaway queries gets the wait-limit error, and get keeps answering', async () => {
    const runaway = testFactsOf(engineForUrl(dbUrl)).slow!.statement.replace('300000000', '30000000000');
    const clients = await Promise.all(
      Array.from({ length: 4 }, () => connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint })),
    );
    try {
      const calls = clients.slice(0, 3).map((c) => callJson(c, 'sql', { sql: runaway }));
      await sleep(500);
      const started = performance.now();
      const behind = await callJson(clients[3]!, 'sql', { sql: 'select 1 as one' });
      const waited = performance.now() - started;
      expect(errorOf(behind)?.code, JSON.stringify(behind.data)).toBe('limit_exceeded');
      expect(errorOf(behind)?.message).toMatch(/--sql-wait-timeout/);
      // within the limit (and some), not after the runaway queries: they run on for two minutes
      expect(waited).toBeLessThan(WAIT_MS + 4_000);
      const got = await callJson(clients[3]!, 'get', { table: 'customers', key: 1 });
      expect(got.isError, JSON.stringify(got.data)).toBe(false);
      // Their clients leave: their processes are ended, and the sql tool serves again.
      await Promise.all(clients.slice(0, 3).map((c) => c.close()));
      await Promise.allSettled(calls);
      let again: CallOutcome | undefined;
      for (let i = 0; i < 50; i++) {
        again = await callJson(clients[3]!, 'sql', { sql: 'select 1 as one' });
        if (!again.isError) break;
        await sleep(100);
      }
      expect(again?.isError, JSON.stringify(again?.data)).toBe(false);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
    }
  }, 60_000);
});

describe.each(liveTargets().filter((t) => t.engine === 'pglite'))(
  '$engine: one connection, cleared after each sql call',
  (target) => {
    let dbUrl = '';
    let mcp: HttpServer;
    let client: Client;

    beforeAll(async () => {
      dbUrl = await freshDatabase(target, 'bench_sql_connections');
      await loadShop(dbUrl);
      await direct(dbUrl, async (db) => {
        await sql`create function leave_state() returns integer language plpgsql volatile as $$
        begin
          execute 'prepare leftover as select 42';
          perform pg_advisory_lock(4242);
          return 1;
        end $$`.execute(db);
      });
      mcp = await startHttpServer(dbUrl, ['--sql', '--sql-allow-function', 'leave_state']);
      client = await connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint });
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await mcp?.stop();
    });

    it('what a call leaves (a prepared statement, a lock) is gone for the next, and the server stays read-only', async () => {
      expect(await sqlRows(client, 'select leave_state() as s')).toEqual([{ s: 1 }]);
      const [seen] = await sqlRows(
        client,
        `select (select count(*) from pg_prepared_statements) as prepared,
        (select count(*) from pg_locks where locktype = 'advisory') as locks,
        current_setting('default_transaction_read_only') as read_only`,
      );
      expect(seen).toEqual({ prepared: '0', locks: '0', read_only: 'on' });
      const got = await callJson(client, 'get', { table: 'customers', key: 1 });
      expect(got.isError, JSON.stringify(got.data)).toBe(false);
    }, 30_000);
  },
);
