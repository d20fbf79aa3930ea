import { sql } from 'kysely';
import { recreateOnServer } from '../testing/databases.js';
import type { EngineTesting, TestDatabases, TestFacts } from '../testing/facts.js';
import { connect } from './connect.js';
import { paritySchema } from './parity-schema.js';

/** What the shared test suites write in SQL Server's SQL. */
export const testFacts: TestFacts = {
  shopTypes: {
    int: 'int',
    bigint: 'bigint',
    text100: 'nvarchar(100)',
    text20: 'nvarchar(20)',
    bool: 'bit',
    money: 'decimal(12,2)',
    ts: 'datetime2(3)',
  },
  notesTable:
    'create table notes (id integer identity primary key, customer_id integer, ' +
    'body nvarchar(100) not null, n integer not null default 0)',
  paritySchema,
  excessRights: { asks: /is_srvrolemember\('sysadmin'\)/ },
};

/** SQL Server's test server: MSSQL_URL (docker/compose.yaml), not required in CI. */
export const testDatabases: TestDatabases = {
  env: 'MSSQL_URL',
  fresh: (baseUrl, name) =>
    recreateOnServer(connect, baseUrl, name, (id, text) => [
      sql`if db_id(${text}) is not null begin alter database ${id} set single_user with rollback immediate; drop database ${id}; end`,
      sql`create database ${id}`,
    ]),
};

export const testing: EngineTesting = { facts: testFacts, databases: testDatabases };
