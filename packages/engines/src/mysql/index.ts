import { sql } from 'kysely';
import { defineEngine } from '../define.js';
import { explainStatement } from '../explain.js';
import { recreateOnServer } from '../test-database.js';
import { bulk } from './bulk.js';
import { checkUrl, compileOnlyDialect, connect } from './connect.js';
import { mapError } from './errors.js';
import { insertReturningKeys } from './insert.js';
import { introspect } from './introspect.js';
import { readOnlyStatement } from './read-only.js';
import { excessRights } from './rights.js';
import { sqlGuard } from './sql-guard.js';
import { testFacts } from './testing.js';
import { encodeParam } from './types.js';

export const mysql = defineEngine({
  name: 'mysql',
  title: 'MySQL',
  urlForms: ['mysql://USER:PASS@HOST:3306/DB'],
  drivers: ['mysql2'],
  checkUrl,
  connect,
  compileOnlyDialect,
  introspect,
  encodeParam,
  mapError,
  explain: explainStatement,
  readOnlyStatement,
  sqlGuard,
  excessRights,
  insertReturningKeys,
  bulk,
  testFacts,
  // no testing: the suites' MySQL-protocol server is MariaDB (see mariadb/index.ts)
});

/** An empty database on a MySQL or MariaDB server, for tests. */
export const freshDatabase = (baseUrl: string, name: string) =>
  recreateOnServer(connect, baseUrl, name, (id) => [
    sql`drop database if exists ${id}`,
    sql`create database ${id} character set utf8mb4 collate utf8mb4_bin`,
  ]);
