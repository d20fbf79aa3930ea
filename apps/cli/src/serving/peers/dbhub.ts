/**
 * DBHub (`@bytebase/dbhub` on npm): one process per database, `--transport http` on loopback
 * (`--host 127.0.0.1`), MCP at /mcp, the database as a DSN. Run by default with npx at the
 * version the dbhub profile is tested against (the workspace catalog's).
 */
import type { SqlFamily } from '@mcp-db-bench/engines';
import type { PeerLauncher } from './launcher.js';
import { sqliteFile, withQuery } from './urls.js';

/** The package the dbhub profile is tested against: the workspace catalog's version (test/peers.test.ts checks). */
export const DBHUB_PACKAGE = '@bytebase/dbhub@1.4.0';

/**
 * DBHub's DSN per SQL family: `sqlite:///ABSOLUTE/PATH`; PostgreSQL with TLS off, as our pg
 * client has it (DBHub would otherwise negotiate it); MySQL and MariaDB as given, since DBHub
 * picks its connector by the scheme (`mysql://` or `mariadb://`), as our engines do.
 */
const DSNS: Partial<Record<SqlFamily, (url: string) => string>> = {
  sqlite: (url) => {
    const file = sqliteFile(url);
    return file ? `sqlite://${file}` : '';
  },
  postgres: (url) => withQuery(url, 'sslmode', 'disable'),
  mysql: (url) => url,
};

export const dbhub: PeerLauncher = {
  name: 'dbhub',
  command: DBHUB_PACKAGE,
  summary: `DBHub from npm (default: ${DBHUB_PACKAGE} with npx)`,
  launch({ url, family }, port) {
    const dsn = DSNS[family]?.(url);
    if (dsn === undefined) return `dbhub is not set up here for ${family} databases`;
    if (dsn === '') return 'dbhub cannot open our in-memory SQLite database';
    return {
      setup: [],
      args: ['--transport', 'http', '--host', '127.0.0.1', '--port', String(port), '--dsn', dsn],
      path: '/mcp',
      // the dialect its SQL is written in: the family's (DBHub's own description names it too)
      options: { engine: family },
    };
  },
};
