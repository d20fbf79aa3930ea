/**
 * Real databases for the profiles' SQL: the server's live test targets (SQLite always, PostgreSQL
 * and MariaDB where their URLs are set, required under CI) that a profile dialect speaks, each a
 * fresh database, reached with the server package's drivers (the agent needs none of them). A
 * peer that runs one statement through one stands for a server's raw-SQL tool.
 */
import { createRequire } from 'node:module';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { McpClient } from '../../src/clients/client.js';
import { DIALECTS } from '../../src/peers/dialects/index.js';

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

type Sqlite = {
  prepare(sql: string): { reader: boolean; all(...v: unknown[]): Rows; run(...v: unknown[]): unknown };
  close(): void;
};

async function sqlite(url: string): Promise<LiveSql> {
  const Database = fromServer('better-sqlite3') as new (file: string) => Sqlite;
  const db = new Database(url.slice('sqlite:'.length));
  return {
    engine: 'sqlite',
    // prepare() takes one statement and refuses the rest
    run: async (sql) => {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all();
      statement.run();
      return [];
    },
    exec: async (sql, values) =>
      void db.prepare(sql).run(...values.map((v) => (typeof v === 'boolean' ? Number(v) : v))),
    close: async () => db.close(),
  };
}

type PgClient = {
  connect(): Promise<void>;
  query(sql: string, values?: unknown[]): Promise<{ rows: Rows } | { rows: Rows }[]>;
  end(): Promise<void>;
};

async function postgres(url: string): Promise<LiveSql> {
  const { Client } = fromServer('pg') as { Client: new (url: string) => PgClient };
  const client = new Client(url);
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
      await client.query(
        sql.replaceAll('?', () => `$${++n}`),
        values,
      );
    },
    close: () => client.end(),
  };
}

type MyConnection = { query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>; end(): Promise<void> };

async function mysql(url: string): Promise<LiveSql> {
  const driver = fromServer('mysql2/promise') as {
    createConnection(options: { uri: string; multipleStatements: boolean; charset: string }): Promise<MyConnection>;
  };
  const connection = await driver.createConnection({ uri: url, multipleStatements: false, charset: 'utf8mb4' });
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

/** How to reach a fresh database, by the dialect that speaks it. */
const OPEN: Record<string, (url: string) => Promise<LiveSql>> = { sqlite, postgres, mysql };

/** The engines to run against here: the dialect's name and how to open a fresh database on it. */
export function liveEngines(): { engine: string; open(name: string): Promise<LiveSql> }[] {
  return liveTargets().flatMap((target) => {
    const dialect = DIALECTS[target.engine];
    const open = dialect && OPEN[dialect.name];
    return open
      ? [{ engine: dialect.name, open: async (name: string) => open(await freshDatabase(target, name)) }]
      : [];
  });
}

/** A server with one raw-SQL tool, `sql`, over a live database; every statement it ran is logged. */
export function sqlPeer(db: LiveSql, log: string[] = [], options: { instructions?: string } = {}): McpClient {
  return {
    open: async () => ({
      era: 'legacy',
      protocolVersion: 'test',
      ...(options.instructions ? { instructions: options.instructions } : {}),
    }),
    abandon: () => {},
    reinitialized: 0,
    listTools: async () => [
      {
        name: 'sql',
        description: 'Runs one SQL statement',
        inputSchema: { type: 'object', properties: { sql: { type: 'string' } } },
      },
    ],
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
