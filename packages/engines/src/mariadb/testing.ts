import { freshDatabase, testFacts } from '../mysql/testing.js';
import type { EngineTesting } from '../testing/facts.js';

/** MYSQL_URL names the suites' MySQL-protocol server, MariaDB in CI (mysql:// and mariadb:// reach it alike). */
export const testing: EngineTesting = {
  facts: testFacts,
  databases: { env: 'MYSQL_URL', requiredInCi: true, adminEnv: 'MYSQL_ADMIN_URL', fresh: freshDatabase },
};
