import { ToolError } from '@mcp-db-bench/contract';
import {
  CompiledQuery,
  type Dialect,
  DummyDriver,
  Kysely,
  MysqlAdapter,
  MysqlDialect,
  MysqlIntrospector,
  MysqlQueryCompiler,
} from 'kysely';
import { answerBudget } from '../answer-bytes.js';
import { cancellableDialect, ownCancel, Statements } from '../calls.js';
import type { Connection, ConnectOptions, SqlConnectOptions } from '../engine.js';
import { loadDriver } from '../load-driver.js';
import { DEFAULT_POOL_WAIT_MS } from '../pool-wait.js';
import { meterAnswers } from './answer-meter.js';
import { boundedWait } from './bounded-pool.js';
import { preparedStatements } from './prepared.js';
import { resettableSessions } from './session-reset.js';

type Mysql2 = typeof import('mysql2');
type TypeCast = Exclude<NonNullable<import('mysql2').PoolOptions['typeCast']>, boolean>;

/** Options that keep values lossless; a URL may not override them (mysql2 lets it). */
const FIXED = {
  supportBigNumbers: true,
  bigNumberStrings: true, // BIGINT and DECIMAL as exact strings
  decimalNumbers: false,
  dateStrings: true, // DATE/DATETIME/TIMESTAMP as their text, never a local-time Date
  timezone: 'Z',
  charset: 'utf8mb4',
  // one statement per request: `select 1; delete ...` is a syntax error, whatever the URL asks
  multipleStatements: false,
} as const;

/** `mariadb://` and friends are the same wire protocol; mysql2 only needs host, user and so on. */
export function toMysql2Url(url: string): string {
  const parsed = new URL(url.replace(/^[a-z][a-z0-9+.-]*:/i, 'mysql:'));
  for (const key of Object.keys(FIXED)) parsed.searchParams.delete(key);
  return parsed.toString();
}

// BIT(1) arrives as a one-byte Buffer; read it as the boolean it stands for.
const typeCast: TypeCast = (field, next) => {
  if (field.type === 'BIT' && field.length === 1) {
    const bytes = field.buffer();
    return bytes === null ? null : bytes[0] === 1;
  }
  return next();
};

/** Without a database, every query would run with none selected: the server would serve 0 tables. */
export function checkUrl(url: string): void {
  const { protocol, pathname } = new URL(url);
  if (/^\/?$/.test(pathname)) {
    throw new ToolError(
      'invalid_argument',
      `the MySQL/MariaDB URL names no database: add it to the path, as in ${protocol}//USER:PASS@HOST:3306/DB`,
    );
  }
}

export async function connect(
  url: string,
  {
    poolSize,
    poolWaitMs = DEFAULT_POOL_WAIT_MS,
    readOnly,
    statementTimeoutMs,
    observer,
    serverLevel,
    maxResponseBytes,
  }: ConnectOptions,
): Promise<Connection> {
  if (!serverLevel) checkUrl(url);
  const mysql = await loadDriver<Mysql2>('mysql', 'mysql2');
  const pool = mysql.createPool({
    uri: toMysql2Url(url),
    connectionLimit: poolSize,
    ...FIXED,
    typeCast,
  });
  // Each connection counts the answers it reads (answer-meter.ts), from its first command on.
  const budget = answerBudget(maxResponseBytes);
  pool.on('connection', (connection) =>
    meterAnswers(connection as unknown as Parameters<typeof meterAnswers>[0], budget),
  );
  const statements = new Statements(observer);
  // The same for every connection of the pool (one server, one set of options); a reset applies it again.
  let settings = '';
  const dialect = new MysqlDialect({
    pool: resettableSessions(preparedStatements(boundedWait(pool, poolWaitMs), mysql.TypedParameter), () => settings),
    // KILL QUERY goes from a connection of its own: every pooled one may be busy
    controlConnection: mysql.createConnection,
    onCreateConnection: async (connection) => {
      const { rows } = await connection.executeQuery<{ v: string }>(CompiledQuery.raw('select version() as v'));
      settings = `set ${sessionSettings(/mariadb/i.test(rows[0]?.v ?? ''), readOnly, statementTimeoutMs).join(', ')}`;
      await connection.executeQuery(CompiledQuery.raw(settings));
    },
  });
  // A statement of a call whose client left, or of a closing server, is stopped with KILL QUERY
  // (kysely's MysqlConnection.cancelQuery), as max_statement_time stops a slow one.
  const db = new Kysely({ dialect: cancellableDialect(dialect, statements, ownCancel) });
  return {
    db,
    driver: pool,
    close: statements.closing(db),
  };
}

/**
 * The sql tool's own pool: sessions like the other tools', always read-only, opened when a call
 * needs one; readOnlyStatement resets each after its call (COM_RESET_CONNECTION, read-only.ts).
 */
export function connectSql(url: string, { role, ...options }: SqlConnectOptions): Promise<Connection> {
  if (role !== undefined)
    throw new ToolError(
      'invalid_argument',
      "a role for the sql tool's sessions is for PostgreSQL: MySQL's and MariaDB's roles add rights to a login, they cannot narrow it",
    );
  return connect(url, { ...options, readOnly: true });
}

/**
 * Per-session settings: TIMESTAMP columns are converted to the session zone on read, so UTC;
 * a read-only session makes the server refuse writes in every transaction, autocommit ones
 * included; the statement timeout is the server's own (it stops the statement), and MariaDB
 * and MySQL name it differently.
 */
export function sessionSettings(mariadb: boolean, readOnly?: boolean, statementTimeoutMs?: number): string[] {
  // mysql2 escapes parameters into the SQL text assuming backslash escapes: keep them on.
  // IGNORE_SPACE (mysql2 asks for it, a URL's flags can drop it): `count (*)` is the built-in, as
  // the sql tool's guard reads it (mysql/functions.ts).
  const mode = "concat(replace(@@sql_mode, 'NO_BACKSLASH_ESCAPES', ''), ',IGNORE_SPACE')";
  const settings = ["time_zone = '+00:00'", `sql_mode = ${mode}`];
  if (readOnly) settings.push(mariadb ? 'session tx_read_only = 1' : 'session transaction_read_only = 1');
  if (statementTimeoutMs) {
    settings.push(
      mariadb
        ? `session max_statement_time = ${statementTimeoutMs / 1000}`
        : `session max_execution_time = ${Math.round(statementTimeoutMs)}`,
    );
  }
  return settings;
}

/** Compiles MySQL SQL without a driver. */
export function compileOnlyDialect(): Dialect {
  return {
    createAdapter: () => new MysqlAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new MysqlIntrospector(db),
    createQueryCompiler: () => new MysqlQueryCompiler(),
  };
}
