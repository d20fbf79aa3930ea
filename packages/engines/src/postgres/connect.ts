import {
  type Dialect,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import { answerBudget } from '../answer-bytes.js';
import { Statements } from '../calls.js';
import type { Connection, ConnectOptions } from '../engine.js';
import { loadDriver } from '../load-driver.js';
import { DEFAULT_POOL_WAIT_MS } from '../pool-wait.js';
import { meteredClient } from './answer-meter.js';
import { watchStatements } from './cancel.js';
import { PostgresDirectReads } from './direct-reads.js';
import { PreparedStatements, statementCacheSize } from './prepared.js';
import { checkSession, sessionSettings, startupOptions } from './session.js';

export type Pg = typeof import('pg').default;

/**
 * Types whose exact text pg would turn into a lossy JS value (int8/numeric as Number,
 * date/time types as Date with millisecond precision and a local-time guess), plus their
 * arrays: shared code decodes these from the text PostgreSQL sends.
 */
const RAW_TEXT_OIDS = [
  20, // int8
  1700, // numeric
  1082, // date
  1083, // time
  1266, // timetz
  1114, // timestamp
  1184, // timestamptz
  1186, // interval
  1016, // int8[]
  1231, // numeric[]
  1182, // date[]
  1183, // time[]
  1270, // timetz[]
  1115, // timestamp[]
  1185, // timestamptz[]
  1187, // interval[]
];
const MONEY_OID = 790;

const identity = (value: string): string => value;

/** Text parsers by type oid, in place of the driver's own: raw text, and money as a plain decimal. */
export const TEXT_PARSERS: Readonly<Record<number, (value: string) => string>> = {
  ...Object.fromEntries(RAW_TEXT_OIDS.map((oid) => [oid, identity])),
  // With lc_monetary=C money prints as `-$1,234.56`: drop the symbol and separators.
  [MONEY_OID]: (value) => value.replace(/[$,]/g, ''),
};

/** pg's `types` option: our text parsers first, then the driver's own. */
export function textTypes(pg: Pg): { getTypeParser: Pg['types']['getTypeParser'] } {
  const getTypeParser = (oid: number, format?: 'text' | 'binary') =>
    TEXT_PARSERS[oid] ?? pg.types.getTypeParser(oid, format);
  return { getTypeParser: getTypeParser as Pg['types']['getTypeParser'] };
}

export async function connect(
  url: string,
  {
    poolSize,
    poolWaitMs = DEFAULT_POOL_WAIT_MS,
    readOnly,
    statementTimeoutMs,
    observer,
    maxResponseBytes,
  }: ConnectOptions,
): Promise<Connection> {
  const size = statementCacheSize(url);
  const settings = sessionSettings(readOnly, statementTimeoutMs);
  const pg = await loadDriver<Pg>('postgres', 'pg');
  // pg's value mapping for a Bind: on the driver's default export, not in its types
  const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;
  const prepared = new PreparedStatements(size, pg.Query, prepareValue);
  // The read tools' lane (direct-reads.ts) is one of the poolSize connections, once the pool keeps two.
  const lane = poolSize >= 3;
  // Every connection, pooled or the lane, counts the rows it reads (answer-meter.ts).
  const Client = meteredClient(pg.Client, answerBudget(maxResponseBytes));
  const config = {
    connectionString: url,
    // bounds both the wait for a busy pool and opening a connection (pg waits forever by default)
    connectionTimeoutMillis: poolWaitMs,
    application_name: 'mcp-db-server',
    options: startupOptions(settings),
    types: textTypes(pg),
  };
  const pool = new pg.Pool({
    ...config,
    Client,
    max: lane ? poolSize - 1 : poolSize,
    // pg-pool checks each new client before handing it out; a failure discards the client and
    // fails the caller's acquire, so no statement runs in a session without the settings.
    verify: (client: import('pg').PoolClient, done: (error?: Error) => void) =>
      checkSession(client, settings).then(() => done(), done),
  } as import('pg').PoolConfig);
  // A client that loses its server emits 'error'; unhandled, that would kill the process. The
  // pool listens only while a client is idle (and re-emits it here), so a checked-out client
  // between statements needs its own listener. Either way the client is marked unusable, its
  // next query fails with a mapped error, and the pool discards it on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepared.attach(client);
  });
  // After the listener above, so a statement and its prepared-statement retry are one statement to cancel.
  const statements = new Statements(observer);
  watchStatements(pool, statements);
  /** The lane's connection: the pool's settings, checked as the pool checks them, statements named alike. */
  const openLane = async () => {
    const client = new Client({ ...config, pipeline: true } as import('pg').ClientConfig);
    client.on('error', () => {});
    try {
      await client.connect();
      await checkSession(client, settings);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    prepared.attach(client as import('pg').PoolClient);
    return client;
  };
  const shortReads = new PostgresDirectReads(pool, statements, lane ? openLane : undefined);
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  const close = statements.closing(db);
  return {
    db,
    shortReads,
    driver: pool,
    close: async () => {
      await close();
      await shortReads.close();
    },
  };
}

/** Compiles PostgreSQL SQL without a driver. */
export function compileOnlyDialect(): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}
