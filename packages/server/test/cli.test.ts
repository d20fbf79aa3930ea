import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@mcp-db-bench/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './support/mcp.js';

/**
 * The built bin as a user runs it from a shell: options, environment variables and the
 * single error boundary (one actionable line on stderr, exit 1, never a stack trace).
 * Every run gets a clean environment (PATH only) unless a test adds variables, so an
 * MCP_DB_URL or DATABASE_URL of the developer's shell cannot leak in.
 */

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  ...extra,
});

/** Runs the bin with stdin closed at once (so stdio mode ends as soon as it has started). */
function run(args: string[], env: NodeJS.ProcessEnv = cleanEnv(), timeout = 20_000): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { env, timeout }, (_error, stdout, stderr) => {
      resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin?.end();
  });
}

/** stderr as lines, without the trailing newline. */
const lines = (text: string) => text.replace(/\n$/, '').split('\n');
/** A V8 stack frame line, as `console.error(error)` or an uncaught throw would print. */
const STACK_FRAME = /^\s+at .+[(:]/m;

/** Asserts the error boundary's shape: exit 1, nothing on stdout, exactly one `mcp-db-server:` line. */
function expectOneLineFailure(result: Run): string {
  expect(result.signal, result.stderr).toBeNull();
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(lines(result.stderr), result.stderr).toHaveLength(1);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  expect(result.stderr).toMatch(/^mcp-db-server: \S/);
  return result.stderr.trim();
}

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

let dir = '';
/** Three user objects (two tables and a view) and one table: told apart by the start-up line's count. */
let threeObjects = '';
let oneTable = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-cli-'));
  threeObjects = join(dir, 'three.db');
  const a = new Database(threeObjects);
  a.exec(`
    create table customers (id integer primary key, name text not null);
    create table orders (id integer primary key, customer_id integer references customers(id));
    create view customer_names as select name from customers;
    insert into customers (name) values ('Ada'), ('Bob');
  `);
  a.close();
  oneTable = join(dir, 'one.db');
  const b = new Database(oneTable);
  b.exec('create table items (id integer primary key, label text)');
  b.close();
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The start-up line stdio mode prints before serving: engine, redacted URL, object count. */
const startupLine = (url: string, count: number) =>
  `mcp-db-server: sqlite ${url}: ${count} tables and views, read-only, statement timeout 30000 ms`;

describe('help and version', () => {
  it('--help exits 0 and documents every option and its environment variable', async () => {
    const result = await run(['--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const options = [
      '--url',
      '--http',
      '--host',
      '--port',
      '--token',
      '--allowed-hosts',
      '--max-rows',
      '--default-rows',
      '--pool-size',
      '--schema-ttl',
      '--allow-writes',
      '--sql',
      '--statement-timeout',
    ];
    for (const option of options) expect(result.stdout).toMatch(new RegExp(`^\\s+${option}\\b`, 'm'));
    const envVars = [
      'MCP_DB_URL',
      'MCP_DB_HTTP',
      'MCP_DB_HOST',
      'MCP_DB_PORT',
      'MCP_DB_TOKEN',
      'MCP_DB_ALLOWED_HOSTS',
      'MCP_DB_MAX_ROWS',
      'MCP_DB_DEFAULT_ROWS',
      'MCP_DB_POOL_SIZE',
      'MCP_DB_SCHEMA_TTL',
      'DATABASE_URL',
    ];
    for (const name of envVars) expect(result.stdout).toMatch(new RegExp(`\\b${name}\\b`));
    // what HTTP clients may hold (transports/limits.ts)
    const limits = [
      'max-connections',
      'max-buffered-bytes',
      'body-timeout',
      'headers-timeout',
      'request-timeout',
      'max-batch',
      'max-batch-bytes',
    ];
    for (const option of limits) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+--${option}\\b`, 'm'));
      expect(result.stdout).toContain(`MCP_DB_${option.toUpperCase().replaceAll('-', '_')}`);
    }
    // the test-only delay (test-delay.ts) is never offered in help
    expect(result.stdout).not.toMatch(/test-delay|TEST_DELAY/i);
    // every supported scheme is named where the URL is explained
    for (const scheme of ['postgres://', 'mysql://', 'mariadb://', 'mssql://', 'sqlserver://', 'sqlite:'])
      expect(result.stdout).toContain(scheme);
  });

  it('--version prints the package.json version', async () => {
    const result = await run(['--version']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${VERSION}\n`);
    expect(result.stderr).toBe('');
  });
});

describe('where the database URL comes from', () => {
  it('fails with one actionable line when no URL is given anywhere', async () => {
    const result = await run([]);
    // a usage error: exit 2
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stderr).toContain('--url');
    expect(result.stderr).toContain('MCP_DB_URL');
    expect(result.stderr).toMatch(/no database/i);
  });

  it('uses MCP_DB_URL', async () => {
    const url = `sqlite:${threeObjects}`;
    const result = await run([], cleanEnv({ MCP_DB_URL: url }));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(lines(result.stderr)).toEqual([startupLine(url, 3)]);
  });

  it('uses DATABASE_URL when neither --url nor MCP_DB_URL is set', async () => {
    const url = `sqlite:${oneTable}`;
    const result = await run([], cleanEnv({ DATABASE_URL: url }));
    expect(result.code, result.stderr).toBe(0);
    expect(lines(result.stderr)).toEqual([startupLine(url, 1)]);
  });

  it('prefers --url over MCP_DB_URL, and MCP_DB_URL over DATABASE_URL', async () => {
    const three = `sqlite:${threeObjects}`;
    const one = `sqlite:${oneTable}`;
    const byEnv = await run([], cleanEnv({ MCP_DB_URL: three, DATABASE_URL: 'foo://never-used' }));
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(lines(byEnv.stderr)).toEqual([startupLine(three, 3)]);
    const byFlag = await run(['--url', one], cleanEnv({ MCP_DB_URL: three }));
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(lines(byFlag.stderr)).toEqual([startupLine(one, 1)]);
  });

  it("takes the CLI's spellings too: --db for --url (beating MCP_DB_URL alike), --stdio for the default", async () => {
    const three = `sqlite:${threeObjects}`;
    const one = `sqlite:${oneTable}`;
    const byDb = await run(['--db', one, '--stdio'], cleanEnv({ MCP_DB_URL: three }));
    expect(byDb.code, byDb.stderr).toBe(0);
    expect(lines(byDb.stderr)).toEqual([startupLine(one, 1)]);
    // MCP_DB_HTTP set (even to 0) is no conflict: the typed --stdio wins
    const overEnv = await run(['--url', one, '--stdio'], cleanEnv({ MCP_DB_HTTP: '1' }));
    expect(overEnv.code, overEnv.stderr).toBe(0);
    expect(lines(overEnv.stderr)).toEqual([startupLine(one, 1)]);
    const both = await run(['--url', one, '--stdio', '--http'], cleanEnv({}));
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--stdio.*cannot be used with.*--http/);
  });
});

describe('bad URLs and unreachable databases', () => {
  it('rejects an unknown scheme as a usage error (exit 2), naming the valid forms unmasked', async () => {
    const result = await run(['--url', 'foo://x']);
    expect(result.code, result.stderr).toBe(2);
    expect(lines(result.stderr)).toHaveLength(1);
    const message = result.stderr.trim();
    expect(message).toMatch(/^error: unknown database URL scheme "foo:"; use /);
    for (const scheme of ['postgres://', 'mysql://', 'mariadb://', 'mssql://', 'sqlite:'])
      expect(message).toContain(scheme);
    // the forms are a hint, not a secret: their PASS is shown as typed
    expect(message).toContain('mariadb://USER:PASS@HOST');
  });

  it('rejects a SQLite path in a missing directory without creating it', async () => {
    const target = '/nonexistent/dir/x.db';
    const message = expectOneLineFailure(await run(['--url', `sqlite:${target}`]));
    expect(message).toContain(`cannot open SQLite database ${target}`);
    expect(existsSync(target)).toBe(false);
    expect(existsSync('/nonexistent')).toBe(false);
  });

  it('does not create a missing SQLite file in an existing directory (a typo must not yield an empty database)', async () => {
    const target = join(dir, 'typo.db');
    const message = expectOneLineFailure(await run(['--url', `sqlite:${target}`]));
    expect(message).toBe(
      `mcp-db-server: cannot open SQLite database ${target}: no such file (the server does not create one; mcp-db-bench seed --db sqlite:${target} makes one)`,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('reports an unreachable PostgreSQL server quickly, in one line', async () => {
    const result = await run(['--url', 'postgres://bench:bench@127.0.0.1:1/bench']);
    const message = expectOneLineFailure(result);
    expect(result.ms).toBeLessThan(10_000);
    expect(message).toMatch(/Cannot reach the PostgreSQL server/);
    expect(message).toContain('ECONNREFUSED');
    // the password of the URL is never echoed
    expect(message).not.toContain('bench:bench@');
  });

  it.skipIf(!process.env.PG_URL)('reports a wrong PostgreSQL password as an authentication failure', async () => {
    const url = new URL(process.env.PG_URL!);
    url.password = 'not-the-password';
    const message = expectOneLineFailure(await run(['--url', url.toString()]));
    expect(message).toMatch(/The PostgreSQL server refused the login/);
    expect(message).toMatch(/password authentication failed for user "[^"]+"/);
    expect(message).not.toContain('not-the-password');
  });

  it.skipIf(!process.env.MYSQL_URL)('reports a wrong MySQL/MariaDB password as an authentication failure', async () => {
    const url = new URL(process.env.MYSQL_URL!);
    url.password = 'not-the-password';
    const message = expectOneLineFailure(await run(['--url', url.toString()]));
    expect(message).toMatch(/The MySQL\/MariaDB server refused the login/);
    expect(message).toMatch(/Access denied for user '[^']+'@'[^']+' \(using password: YES\)/);
    expect(message).not.toContain('not-the-password');
  });
});

describe('a database that is not there', () => {
  it.skipIf(!process.env.PG_URL)('names a missing PostgreSQL database and says how to create it', async () => {
    const url = new URL(process.env.PG_URL!);
    url.pathname = '/bench_no_such_database';
    const message = expectOneLineFailure(await run(['--url', url.toString()]));
    expect(message).toMatch(
      /The PostgreSQL server has no such database: database "bench_no_such_database" does not exist/,
    );
    expect(message).toContain('createdb bench_no_such_database, or CREATE DATABASE "bench_no_such_database"');
    expect(message).not.toMatch(/Cannot reach/);
  });

  it.skipIf(!process.env.MYSQL_URL)('names a missing MySQL/MariaDB database and says how to create it', async () => {
    const url = new URL(process.env.MYSQL_URL!);
    url.pathname = '/bench_no_such_database';
    const message = expectOneLineFailure(await run(['--url', url.toString()]));
    expect(message).toMatch(
      /The MySQL\/MariaDB server has no such database: Unknown database 'bench_no_such_database'/,
    );
    expect(message).toContain('CREATE DATABASE `bench_no_such_database`, as a user allowed to');
  });

  it('refuses a MySQL/MariaDB URL that names no database as a usage error (exit 2), rather than serving 0 tables', async () => {
    // Port 1: nothing listens there, so only the check before connecting can answer this way.
    for (const url of ['mysql://bench:bench@127.0.0.1:1', 'mariadb://bench:bench@127.0.0.1:1/']) {
      const result = await run(['--url', url]);
      expect(result.code, result.stderr).toBe(2);
      expect(lines(result.stderr)).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(
        /^error: the MySQL\/MariaDB URL names no database: add it to the path, as in (mysql|mariadb):\/\/USER:PASS@HOST:3306\/DB$/,
      );
    }
  });
});

describe('option validation', () => {
  const url = () => `sqlite:${oneTable}`;

  it("rejects a non-numeric --port with commander's message", async () => {
    const result = await run(['--url', url(), '--port', 'abc']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe("error: option '--port <port>' argument 'abc' is invalid. port must be 0-65535");
  });

  it('exits 2 on an unknown option, as on every usage error', async () => {
    const result = await run(['--url', url(), '--bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe("error: unknown option '--bogus'");
  });

  it("rejects --max-rows 0 with commander's message", async () => {
    const result = await run(['--url', url(), '--max-rows', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "error: option '--max-rows <n>' argument '0' is invalid. max-rows must be a positive integer",
    );
  });

  it('names auto beside the number a bad --busy-poll or --workers should have been', async () => {
    const result = await run(['--url', url(), '--http', '--busy-poll', 'fast']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "error: option '--busy-poll <us>' argument 'fast' is invalid. busy-poll must be a whole number of microseconds, 0 or more, or auto",
    );
    const workers = await run(['--url', url(), '--http', '--workers', '0']);
    expect(workers.code).toBe(2);
    expect(workers.stderr.trim()).toBe(
      "error: option '--workers <n>' argument '0' is invalid. workers must be a positive integer, or auto",
    );
  });

  it('validates values that come from the environment too', async () => {
    const result = await run([], cleanEnv({ MCP_DB_URL: url(), MCP_DB_PORT: '70000' }));
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      "error: option '--port <port>' value '70000' from env 'MCP_DB_PORT' is invalid. port must be 0-65535",
    );
  });

  it('refuses a headers timeout longer than the request timeout, which includes the headers', async () => {
    const result = await run(['--url', url(), '--http', '--headers-timeout', '20000', '--request-timeout', '10000']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'error: --headers-timeout (20000 ms) cannot be longer than --request-timeout (10000 ms), which includes the headers',
    );
  });

  it('refuses a session key under 32 characters without printing it, from the flag or the environment', async () => {
    for (const result of [
      await run(['--url', url(), '--session-key', 'short-secret']),
      await run([], cleanEnv({ MCP_DB_URL: url(), MCP_DB_SESSION_KEY: 'short-secret' })),
    ]) {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--session-key (MCP_DB_SESSION_KEY) must be at least 32 characters');
      expect(result.stderr).not.toContain('short-secret');
    }
  });

  it('refuses --http on a non-loopback address without --token, and never listens', async () => {
    const port = await freePort();
    const result = await run(['--url', url(), '--http', '--host', '0.0.0.0', '--port', String(port)]);
    // a command-line mistake: exit 2, before the database is opened
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).not.toContain('listening on');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(lines(result.stderr)).toEqual([
      'error: refusing to listen on 0.0.0.0 without --token: only loopback addresses may go unauthenticated',
    ]);
    expect(await canConnect(port)).toBe(false);
  });
});

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
