import type { TestFacts } from '../engine.js';
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
