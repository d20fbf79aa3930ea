import { sql } from 'kysely';
import { defineEngine } from '../define.js';
import { postgres } from '../postgres/index.js';
import { readOnlyRunner } from '../postgres/read-only.js';
import { bulk } from './bulk.js';
import { connect, connectSql, RESET } from './connect.js';

/**
 * PostgreSQL compiled to WebAssembly, embedded: PostgreSQL's SQL, types, introspection and
 * errors, with nothing to install. It runs on the server's event loop with no lock manager
 * (see connect.ts).
 */
export const pglite = defineEngine({
  ...postgres,
  name: 'pglite',
  dbSystem: 'postgresql',
  title: 'PGlite',
  schemes: ['pglite'],
  urlForms: ['pglite:DIRECTORY', 'pglite::memory:'],
  drivers: ['@electric-sql/pglite'],
  connect,
  connectSql,
  // One connection, shared by every tool: what a caller's statement leaves on it is cleared after
  // the rollback, a statement at a time (PGlite's query takes one).
  readOnlyStatement: readOnlyRunner(sql.raw('rollback'), ...RESET.map((statement) => sql.raw(statement))),
  // One user, in this process: no rights to narrow.
  excessRights: undefined,
  bulk,
  oneProcess: true,
  cancelsStatements: false,
});
