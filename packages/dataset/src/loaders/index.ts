import type { SqlFamily } from '@mcp-db-bench/server/databases';
import type { Loader } from './loader.js';
import { mssqlLoader } from './mssql.js';
import { mysqlLoader } from './mysql.js';
import { postgresLoader } from './postgres.js';
import { sqliteLoader } from './sqlite.js';

/** Bulk loaders by SQL family: MariaDB loads like MySQL. */
export const LOADERS: Record<SqlFamily, Loader> = {
  postgres: postgresLoader,
  mysql: mysqlLoader,
  mssql: mssqlLoader,
  sqlite: sqliteLoader,
};

export type { Loader } from './loader.js';
