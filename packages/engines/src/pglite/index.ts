import { sql } from 'kysely';
import { defineEngine } from '../define.js';
import { postgres } from '../postgres/index.js';
import { readOnlyRunner } from '../postgres/read-only.js';
import { bulk } from './bulk.js';
import { connect } from './connect.js';

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
  // One connection, which no other session shares: a lock left on it shuts nobody out (and PGlite's
  // query takes one statement, so the unlock could not ride with the rollback).
  readOnlyStatement: readOnlyRunner(sql.raw('rollback')),
  // One user, in this process: no rights to narrow.
  excessRights: undefined,
  bulk,
  oneProcess: true,
  cancelsStatements: false,
});
