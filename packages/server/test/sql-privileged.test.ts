import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type AnyDb, engineForUrl, postgres } from '@mcp-db-bench/engines';
import { engineOf, freshDatabase, type LiveTarget, liveTargets, privilegedTargets } from '@mcp-db-bench/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, callJson, connectClient, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * The database's rights come first: with --sql the server refuses to start on a login that
 * reaches the database host (PostgreSQL superuser or a server-file role; MariaDB/MySQL FILE or
 * SUPER), shows the least-privilege login to create, and starts with that login; the operator can
 * accept the risk with --sql-privileged-login. On PostgreSQL, --sql-role gives the sql tool a
 * narrower role than the login, whose rights are then the ones that count.
 */

const suffix = (process.env.TEST_DB_SUFFIX ?? '').toLowerCase();
const admins = privilegedTargets().filter((t) => t.baseUrl.includes('://'));

/** `url` with another login. */
function asLogin(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/** `adminUrl` pointed at the database of `dbUrl`. */
function onDatabase(adminUrl: string, dbUrl: string): string {
  const u = new URL(adminUrl);
  u.pathname = new URL(dbUrl).pathname;
  return u.toString();
}

/** Runs `work` on a connection of `url`'s login, then closes it. */
async function as<T>(url: string, work: (db: AnyDb) => Promise<T>): Promise<T> {
  const { db, close } = await engineForUrl(url).connect(url, { poolSize: 1 });
  try {
    return await work(db);
  } finally {
    await close();
  }
}

/** Starts the bin over stdio with its input closed: how it exits, and what it said. */
async function startOnce(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  child.stdin!.end();
  const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(kill);
  return { code, stderr };
}

describe.each(admins)('$engine: --sql on a login that reaches the host', (target: LiveTarget) => {
  const family = engineOf(target).family;
  const login = `mcp_reader${suffix}`;
  const password = randomBytes(9).toString('hex');
  let dbUrl = '';
  /** the statements to run as an administrator, for `login` */
  let statements: string[] = [];

  /** Drops the login the test made (and what it was granted, on PostgreSQL). */
  const dropLogin = () =>
    as(dbUrl, async (db) => {
      if (family === 'postgres') {
        const exists = await sql`select 1 from pg_roles where rolname = ${login}`.execute(db);
        if (exists.rows.length) await sql`drop owned by ${sql.id(login)}; drop role ${sql.id(login)}`.execute(db);
      } else {
        await sql.raw(`drop user if exists '${login}'@'localhost', '${login}'@'%', '${login}'@'127.0.0.1'`).execute(db);
      }
    });

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_sql_privileged');
    await loadShop(dbUrl);
    await dropLogin();
  }, 60_000);
  afterAll(async () => {
    if (dbUrl) await dropLogin();
  });

  it('refuses to start, shows the least-privilege login to create, and names the option that accepts it', async () => {
    const { code, stderr } = await startOnce(['--url', dbUrl, '--sql']);
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(
      /--sql refused on \w+: the login \S+ has (superuser|FILE, SUPER), which reaches past the database/,
    );
    expect(stderr).toMatch(
      /--sql-privileged-login \(MCP_DB_SQL_PRIVILEGED_LOGIN; sql\.privilegedLogin in the --config file\)/,
    );
    statements = stderr
      .split('\n')
      .filter((line) => /^ {2}(CREATE|GRANT|ALTER) /.test(line))
      .map((line) => line.trim());
    expect(statements[0]).toMatch(/^CREATE (ROLE mcp_reader LOGIN|USER 'mcp_reader'@'[^']+') .*'choose-a-password';$/);
    expect(statements.some((s) => /^GRANT SELECT ON /.test(s))).toBe(true);
    // nothing that reaches past the rows
    expect(statements.join('\n')).not.toMatch(/SUPERUSER|FILE|SUPER\b|ALL PRIVILEGES|pg_read_server_files/);
  }, 60_000);

  it('the suggested statements work: that login serves sql, and the start is not refused', async () => {
    expect(statements.length).toBeGreaterThan(1);
    await as(dbUrl, async (db) => {
      for (const statement of statements) {
        const text = statement.replaceAll('mcp_reader', login).replace('choose-a-password', password);
        await sql.raw(text).execute(db);
      }
    });
    const narrow = asLogin(dbUrl, login, password);
    const server = await startHttpServer(narrow, ['--sql']);
    try {
      expect(server.stderr()).not.toMatch(/WARNING|refused/);
      const client = await connectClient('http', 'modern', { dbUrl: narrow, endpoint: server.endpoint });
      try {
        const out = await callJson(client, 'sql', { sql: 'select count(*) as n from customers' });
        expect(out.isError, JSON.stringify(out.data)).toBe(false);
        expect(Number((out.data as { rows: { n: unknown }[] }).rows[0]!.n)).toBe(24);
        const got = await callJson(client, 'get', { table: 'customers', key: 1 });
        expect(got.isError, JSON.stringify(got.data)).toBe(false);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('starts with --sql-privileged-login (or its variable), with the warning, and serves sql', async () => {
    const server = await startHttpServer(dbUrl, ['--sql', '--sql-privileged-login']);
    try {
      expect(server.stderr()).toMatch(/WARNING: connected as \S+, which has (superuser|FILE, SUPER)/);
      const client = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
      try {
        const out = await callJson(client, 'sql', { sql: 'select count(*) as n from customers' });
        expect(out.isError, JSON.stringify(out.data)).toBe(false);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
    const byVariable = await startHttpServer(dbUrl, ['--sql'], { MCP_DB_SQL_PRIVILEGED_LOGIN: '1' });
    await byVariable.stop();
    // MCP_DB_SQL_PRIVILEGED_LOGIN=0 accepts nothing
    const off = spawn(process.execPath, [BIN, '--url', dbUrl, '--sql'], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, MCP_DB_SQL_PRIVILEGED_LOGIN: '0' },
    });
    off.stdin!.end();
    expect((await once(off, 'exit'))[0]).toBe(2);
  }, 60_000);

  it('without --sql, the login is only warned of: the structured tools keep within the rows', async () => {
    const { code, stderr } = await startOnce(['--url', dbUrl]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/WARNING: connected as \S+, which has (superuser|FILE, SUPER)/);
    expect(stderr).not.toMatch(/refused/);
  }, 60_000);
});

const pgAdmin = admins.find((t) => engineOf(t).family === 'postgres');
const pgOrdinary = liveTargets().find((t) => t.engine === 'postgres');

describe.runIf(pgAdmin && pgOrdinary)('postgres: --sql-role', () => {
  const role = `mcp_sql_role${suffix}`;
  let dbUrl = '';
  let adminUrl = '';

  beforeAll(async () => {
    dbUrl = await freshDatabase(pgOrdinary!, 'bench_sql_role');
    await loadShop(dbUrl);
    adminUrl = onDatabase(pgAdmin!.baseUrl, dbUrl);
    const user = decodeURIComponent(new URL(dbUrl).username);
    await as(adminUrl, async (db) => {
      const exists = await sql`select 1 from pg_roles where rolname = ${role}`.execute(db);
      if (exists.rows.length) await sql`drop owned by ${sql.id(role)}; drop role ${sql.id(role)}`.execute(db);
      await sql`create role ${sql.id(role)} nologin`.execute(db);
      await sql`grant select on customers to ${sql.id(role)}`.execute(db);
      // the suites' ordinary login may take the role
      await sql`grant ${sql.id(role)} to ${sql.id(user)}`.execute(db);
    });
  }, 60_000);
  afterAll(async () => {
    if (adminUrl) await as(adminUrl, (db) => sql`drop owned by ${sql.id(role)}; drop role ${sql.id(role)}`.execute(db));
  });

  it("the sql tool's sessions cannot end the other tools' backends with the role; without it, they can", async () => {
    const main = await postgres.connect(dbUrl, { poolSize: 1 });
    const pidOf = async () =>
      Number((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(main.db)).rows[0]!.pid);
    try {
      const pid = await pidOf();
      const narrow = await postgres.connectSql!(dbUrl, { poolSize: 1, poolWaitMs: 5_000, role }, main);
      try {
        const who = await sql<{ u: string }>`select current_user as u`.execute(narrow.db);
        expect(who.rows[0]!.u).toBe(role);
        await expect(sql`select pg_terminate_backend(${pid})`.execute(narrow.db)).rejects.toMatchObject({
          code: '42501',
        });
        expect(await pidOf()).toBe(pid);
        // and after a reset (DISCARD ALL), still the role
        expect((await sql<{ u: string }>`select current_user as u`.execute(narrow.db)).rows[0]!.u).toBe(role);
      } finally {
        await narrow.close();
      }
      // The control: the login itself may end its own backends, the attack of the third round.
      const wide = await postgres.connectSql!(dbUrl, { poolSize: 1, poolWaitMs: 5_000 }, main);
      try {
        const ended = await sql<{ ended: boolean }>`select pg_terminate_backend(${pid}) as ended`.execute(wide.db);
        expect(ended.rows[0]!.ended).toBe(true);
      } finally {
        await wide.close();
      }
    } finally {
      await main.close();
    }
  }, 30_000);

  it("a superuser login serves sql through a narrow role: not refused, and sql has only the role's rights", async () => {
    const superDb = onDatabase(pgAdmin!.baseUrl, dbUrl);
    const refused = await startOnce(['--url', superDb, '--sql']);
    expect(refused.code, refused.stderr).toBe(2);
    const server = await startHttpServer(superDb, ['--sql', '--sql-role', role]);
    try {
      expect(server.stderr()).not.toMatch(/refused/);
      const client = await connectClient('http', 'modern', { dbUrl: superDb, endpoint: server.endpoint });
      try {
        const who = await callJson(client, 'sql', { sql: 'select current_user as u, count(*) as n from customers' });
        expect(who.data).toMatchObject({ rows: [{ u: role, n: '24' }] });
        const orders = await callJson(client, 'sql', { sql: 'select count(*) as n from orders' });
        expect(orders.isError).toBe(true);
        expect(JSON.stringify(orders.data)).toMatch(/permission denied/);
        // the other tools still read as the login
        const got = await callJson(client, 'get', { table: 'orders', key: 1 });
        expect(got.isError, JSON.stringify(got.data)).toBe(false);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('refuses at start a role the login may not take, or a name that is not one', async () => {
    const missing = await startOnce(['--url', dbUrl, '--sql', '--sql-role', `no_such_role${suffix}`]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/role "no_such_role\w*" does not exist/);
    const odd = await startOnce(['--url', dbUrl, '--sql', '--sql-role', 'x y']);
    expect(odd.code).not.toBe(0);
    expect(odd.stderr).toMatch(/a role for the sql tool's sessions is a plain name/);
  }, 60_000);
});

describe.runIf(pgAdmin && pgOrdinary)('postgres: the temporary files of sql statements', () => {
  const login = `mcp_temp${suffix}`;
  const password = randomBytes(9).toString('hex');
  let dbUrl = '';
  let adminUrl = '';
  /** spills a tuplestore of about 100 MB: generate_series in FROM is kept whole before it is counted */
  const SPILL = 'select count(*) as n from generate_series(1, 3000000)';
  const drop = () =>
    as(adminUrl, async (db) => {
      const exists = await sql`select 1 from pg_roles where rolname = ${login}`.execute(db);
      if (exists.rows.length) await sql`drop owned by ${sql.id(login)}; drop role ${sql.id(login)}`.execute(db);
    });

  beforeAll(async () => {
    dbUrl = await freshDatabase(pgOrdinary!, 'bench_sql_temp');
    await loadShop(dbUrl);
    adminUrl = onDatabase(pgAdmin!.baseUrl, dbUrl);
    await drop();
    await as(adminUrl, async (db) => {
      await sql`create role ${sql.id(login)} login password ${sql.lit(password)}`.execute(db);
      await sql`grant select on all tables in schema public to ${sql.id(login)}`.execute(db);
      // as the suggested statements have it, smaller: a bound the database enforces at login
      await sql`alter role ${sql.id(login)} set temp_file_limit = '10MB'`.execute(db);
    });
  }, 60_000);
  afterAll(async () => {
    if (adminUrl) await drop();
  });

  /** What a server on `url` said at start, and what its sql tool answers to SPILL. */
  const serve = async (url: string) => {
    const server = await startHttpServer(url, ['--sql']);
    try {
      const client = await connectClient('http', 'modern', { dbUrl: url, endpoint: server.endpoint });
      try {
        return { stderr: server.stderr(), spill: await callJson(client, 'sql', { sql: SPILL }) };
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  };

  it('a login without temp_file_limit is warned of at start with the statement that bounds it, and the bound holds', async () => {
    const open = await serve(dbUrl);
    const user = decodeURIComponent(new URL(dbUrl).username);
    expect(open.stderr).toMatch(
      /WARNING: the sql tool's statements may write temporary files on the database host without limit/,
    );
    expect(open.stderr).toContain(`ALTER ROLE ${user} SET temp_file_limit = '1GB'`);
    expect(open.spill.data).toMatchObject({ rows: [{ n: '3000000' }] });
    const bounded = await serve(asLogin(dbUrl, login, password));
    expect(bounded.stderr).not.toMatch(/WARNING/);
    expect(bounded.spill.isError).toBe(true);
    expect(JSON.stringify(bounded.spill.data)).toMatch(/temporary file size exceeds temp_file_limit/);
  }, 60_000);
});
