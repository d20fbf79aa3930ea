/**
 * Real databases for the profiles' SQL, reached with the server package's drivers (the agent
 * needs none of them): SQLite always, PostgreSQL where PG_URL is set, MySQL/MariaDB where
 * MYSQL_URL is set (as the server's liveTargets reads them). Each is a fresh `bench_*` database,
 * and a peer that runs one statement through it stands for a server's raw-SQL tool.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { McpClient } from '../../src/clients/client.js';

const fromServer = createRequire(new URL('../../../server/package.json', import.meta.url));

export type Rows = Record<string, unknown>[];

export interface LiveSql {
  /** the dialect's engine name */
  engine: string;
  /** one statement, as the peer's tool would run it; several are refused (a literal broke out) */
  run(sql: string): Promise<Rows>;
  /** with `?` placeholders: test fixtures only, never the SQL under test */
  exec(sql: string, values: unknown[]): Promise<void>;
  close(): Promise<void>;
}

type Sqlite = { prepare(sql: string): { reader: boolean; all(...v: unknown[]): Rows; run(...v: unknown[]): unknown }; close(): void };

function sqlite(dir: string, name: string): LiveSql {
  const Database = fromServer('better-sqlite3') as new (file: string) => Sqlite;
  const db = new Database(join(dir, `${name}.db`));
  return {
    engine: 'sqlite',
    // prepare() takes one statement and refuses the rest
    run: async (sql) => {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all();
      statement.run();
      return [];
    },
    exec: async (sql, values) => void db.prepare(sql).run(...values.map((v) => (typeof v === 'boolean' ? Number(v) : v))),
    close: async () => db.close(),
  };
}

type PgClient = { connect(): Promise<void>; query(sql: string, values?: unknown[]): Promise<{ rows: Rows } | { rows: Rows }[]>; end(): Promise<void> };

async function postgres(baseUrl: string, name: string): Promise<LiveSql> {
  const { Client } = fromServer('pg') as { Client: new (url: string) => PgClient };
  const admin = new Client(baseUrl);
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const client = new Client(url.toString());
  await client.connect();
  return {
    engine: 'postgres',
    run: async (sql) => {
      const r = await client.query(sql);
      if (Array.isArray(r)) throw new Error(`several statements ran: ${sql}`);
      return r.rows;
    },
    exec: async (sql, values) => {
      let n = 0;
      await client.query(sql.replaceAll('?', () => `$${++n}`), values);
    },
    close: () => client.end(),
  };
}

type MyConnection = { query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>; end(): Promise<void> };

async function mysql(baseUrl: string, name: string): Promise<LiveSql> {
  const driver = fromServer('mysql2/promise') as { createConnection(options: { uri: string; multipleStatements: boolean; charset: string }): Promise<MyConnection> };
  const open = (uri: string) => driver.createConnection({ uri, multipleStatements: false, charset: 'utf8mb4' });
  const admin = await open(baseUrl);
  await admin.query(`drop database if exists ${name}`);
  await admin.query(`create database ${name} character set utf8mb4 collate utf8mb4_bin`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const connection = await open(url.toString());
  return {
    engine: 'mysql',
    run: async (sql) => {
      const [rows] = await connection.query(sql);
      return Array.isArray(rows) ? (rows as Rows) : [];
    },
    exec: async (sql, values) => void (await connection.query(sql, values)),
    close: () => connection.end(),
  };
}

/** A server engine whose URL variable is set (CI requires both, as the server's liveTargets does). */
function server(env: string, engine: string, open: (url: string, name: string) => Promise<LiveSql>) {
  const url = process.env[env];
  if (!url && process.env.CI) throw new Error(`CI needs ${engine}: set ${env} (see .ci/run)`);
  return url ? [{ engine, open: (name: string) => open(url, name) }] : [];
}

/** The engines to run against here: name and how to open a fresh database on it. */
export function liveEngines(dir: string): { engine: string; open(name: string): Promise<LiveSql> }[] {
  return [
    { engine: 'sqlite', open: async (name: string) => sqlite(dir, name) },
    ...server('PG_URL', 'postgres', postgres),
    ...server('MYSQL_URL', 'mysql', mysql),
  ];
}

/** A server with one raw-SQL tool, `sql`, over a live database; every statement it ran is logged. */
export function sqlPeer(db: LiveSql, log: string[] = [], options: { instructions?: string } = {}): McpClient {
  return {
    open: async () => ({ era: 'legacy', protocolVersion: 'test', ...(options.instructions ? { instructions: options.instructions } : {}) }),
    listTools: async () => [{ name: 'sql', description: 'Runs one SQL statement', inputSchema: { type: 'object', properties: { sql: { type: 'string' } } } }],
    async callTool(_name, args) {
      const sql = String(args.sql);
      log.push(sql);
      try {
        const rows = await db.run(sql);
        // indented, as several servers send their text: the token count must read it as sent
        return { isError: false, data: { rows }, content: [{ type: 'text', text: JSON.stringify({ rows }, null, 2) }] };
      } catch (error) {
        const text = (error as Error).message;
        return { isError: true, data: text, content: [{ type: 'text', text }] };
      }
    },
    close: async () => {},
  };
}
