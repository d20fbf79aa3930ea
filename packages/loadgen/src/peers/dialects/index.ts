import type { SqlDialect } from './dialect.js';
import { mysql } from './mysql.js';
import { postgres } from './postgres.js';
import { sqlite } from './sqlite.js';

export { literal, type SqlDialect } from './dialect.js';

/** The SQL dialects profiles write, by the engine name `--profile NAME:ENGINE` takes; a file and a line each. */
export const DIALECTS: Readonly<Record<string, SqlDialect>> = {
  sqlite,
  postgres,
  postgresql: postgres,
  mysql,
  mariadb: mysql,
};
