/**
 * Faucet (faucetdb, a Go binary): its service `main` is added to a configuration directory of its
 * own (`faucet db add`, which keeps it in a SQLite file there), then `faucet mcp --transport http`
 * serves MCP at /mcp. Faucet's `mcp` command takes no listen address: it listens on every
 * interface, on the free loopback port chosen for it, for the length of the run. Faucet is on
 * neither npm nor (as a binary) any package registry: the command is a binary built from its
 * source (docs/profiles.md).
 */
import type { SqlFamily } from '@mcp-db-bench/engines';
import type { PeerLauncher } from './launcher.js';
import { serverParts, sqliteFile, withQuery } from './urls.js';

/** The service name the faucet profile drives (its --service default). */
const SERVICE = 'main';

/**
 * Faucet's driver and DSN per SQL family: a SQLite file's path (modernc.org/sqlite), pgx's URL
 * with TLS off as our pg client has it (a server with ssl=on would otherwise be spoken to over
 * TLS), and go-sql-driver/mysql's `USER:PASS@tcp(HOST:PORT)/DB`, MariaDB's too.
 */
const CONNECTIONS: Partial<Record<SqlFamily, (url: string) => { driver: string; dsn: string } | string>> = {
  sqlite: (url) => {
    const file = sqliteFile(url);
    return file ? { driver: 'sqlite', dsn: file } : 'faucet cannot open our in-memory SQLite database';
  },
  postgres: (url) => ({ driver: 'postgres', dsn: withQuery(url, 'sslmode', 'disable') }),
  mysql: (url) => {
    const p = serverParts(url, 3306);
    return { driver: 'mysql', dsn: `${p.user}:${p.password}@tcp(${p.host}:${p.port})/${p.database}` };
  },
};

export const faucet: PeerLauncher = {
  name: 'faucet',
  command: 'faucet',
  summary: 'Faucet, a binary built from github.com/faucetdb/faucet (default: faucet on PATH)',
  launch({ url, family }, port, dir) {
    const connection = CONNECTIONS[family]?.(url) ?? `faucet is not set up here for ${family} databases`;
    if (typeof connection === 'string') return connection;
    const data = ['--data-dir', dir];
    return {
      setup: [['db', 'add', ...data, '--name', SERVICE, '--driver', connection.driver, '--dsn', connection.dsn]],
      args: ['mcp', ...data, '--transport', 'http', '--port', String(port)],
      // its usage reports: none from a benchmark (TELEMETRY.md)
      env: { FAUCET_TELEMETRY: '0' },
      path: '/mcp',
      options: { service: SERVICE },
    };
  },
};
