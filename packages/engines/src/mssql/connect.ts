import { ToolError } from '@mcp-db-bench/contract';
import {
  type Dialect,
  DummyDriver,
  Kysely,
  MssqlAdapter,
  MssqlDialect,
  MssqlIntrospector,
  MssqlQueryCompiler,
} from 'kysely';
import type { ConnectionConfiguration } from 'tedious';
import { cancellableDialect, ownCancel, Statements } from '../calls.js';
import type { Connection, ConnectOptions } from '../engine.js';
import { loadDriver } from '../load-driver.js';
import { DEFAULT_POOL_WAIT_MS } from '../pool-wait.js';
import { PreciseDates } from './precise-dates.js';

type Tedious = typeof import('tedious');
type Tarn = typeof import('tarn');

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * Turns `mssql://user:pass@host:port/db?encrypt=false&trustServerCertificate=true` (or
 * `sqlserver://...`) into a tedious configuration. Other query options: `instanceName` (named
 * instance, instead of a port), `readOnlyIntent`, `connectTimeout` and `requestTimeout` (ms).
 *
 * Encryption defaults to on, except on loopback where local development servers usually have
 * no trusted certificate. Values are read as UTC (`useUTC`) like on the other engines, and
 * there is no driver-side request timeout unless asked for (tedious defaults to 15 s).
 */
export function parseMssqlUrl(url: string): ConnectionConfiguration {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new ToolError('invalid_argument', 'The SQL Server URL is malformed', { cause: error });
  }
  if (parsed.protocol !== 'mssql:' && parsed.protocol !== 'sqlserver:')
    throw new ToolError('invalid_argument', `Not a SQL Server URL: expected mssql:// or sqlserver://`);
  const server = decodeURIComponent(parsed.hostname.replace(/^\[(.*)\]$/, '$1'));
  if (!server) throw new ToolError('invalid_argument', 'The SQL Server URL has no host');
  const params = parsed.searchParams;
  const flag = (name: string, fallback: boolean): boolean => {
    const value = params.get(name);
    if (value === null || value === '') return fallback;
    if (/^(?:true|1|yes|on)$/i.test(value)) return true;
    if (/^(?:false|0|no|off)$/i.test(value)) return false;
    throw new ToolError('invalid_argument', `The SQL Server URL option ${name} must be true or false`);
  };
  const millis = (name: string, fallback: number): number => {
    const value = params.get(name);
    if (value === null || value === '') return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new ToolError('invalid_argument', `The SQL Server URL option ${name} must be milliseconds`);
    return n;
  };
  const instanceName = params.get('instanceName') ?? undefined;
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || undefined;
  return {
    server,
    authentication: {
      type: 'default',
      options: {
        userName: decodeURIComponent(parsed.username),
        password: decodeURIComponent(parsed.password),
      },
    },
    options: {
      database,
      // tedious rejects a port together with an instance name (the browser service finds it)
      ...(instanceName ? { instanceName } : { port: parsed.port ? Number(parsed.port) : 1433 }),
      encrypt: flag('encrypt', !LOOPBACK.has(server.toLowerCase()) && !LOOPBACK.has(parsed.hostname)),
      trustServerCertificate: flag('trustServerCertificate', false),
      readOnlyIntent: flag('readOnlyIntent', false),
      connectTimeout: millis('connectTimeout', 15_000),
      requestTimeout: millis('requestTimeout', 0),
      useUTC: true,
      // uuids in lower case, as PostgreSQL and MariaDB print them
      lowerCaseGuids: true,
      appName: 'mcp-db-server',
    },
  };
}

/**
 * Opens a tarn pool of tedious connections. tedious has no option for lossless numbers:
 * bigint arrives as a string, but decimal/numeric/money arrive as JS numbers (exact only up
 * to 15-17 significant digits), and date/time types as Dates (turned into precise text by
 * PreciseDates).
 */
export async function connect(
  url: string,
  { poolSize, poolWaitMs = DEFAULT_POOL_WAIT_MS, observer }: ConnectOptions,
): Promise<Connection> {
  const config = parseMssqlUrl(url);
  const [tedious, tarn] = await Promise.all([
    loadDriver<Tedious>('mssql', 'tedious'),
    loadDriver<Tarn>('mssql', 'tarn'),
  ]);
  const statements = new Statements(observer);
  const dialect = new MssqlDialect({
    // propagateCreateError: fail the waiting query when a connection cannot be opened, instead
    // of retrying silently until the acquire timeout
    tarn: { ...tarn, options: { min: 0, max: poolSize, propagateCreateError: true, acquireTimeoutMillis: poolWaitMs } },
    tedious: { ...tedious, connectionFactory: () => new tedious.Connection(config) },
  });
  // A statement of a call whose client left, or of a closing server, is stopped with an attention
  // (tedious's cancel, through kysely's MssqlConnection.cancelQuery) on its own connection.
  const db = new Kysely({ dialect: cancellableDialect(dialect, statements, ownCancel), plugins: [new PreciseDates()] });
  return {
    db,
    driver: undefined,
    close: statements.closing(db),
  };
}

/** Compiles SQL Server SQL without a driver. */
export function compileOnlyDialect(): Dialect {
  return {
    createAdapter: () => new MssqlAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new MssqlIntrospector(db),
    createQueryCompiler: () => new MssqlQueryCompiler(),
  };
}
