import { defineEngine } from '../define.js';
import { compileOnlyDialect } from '../postgres/connect.js';
import { mapError } from '../postgres/errors.js';
import { introspect } from '../postgres/introspect.js';
import { readOnlyStatement } from '../postgres/read-only.js';
import { encodeParam } from '../postgres/types.js';
import { temporaryPath } from '../test-database.js';
import { bulk } from './bulk.js';
import { connect } from './connect.js';

/** PostgreSQL compiled to WebAssembly, embedded: PostgreSQL's SQL and types with nothing to install. */
export const pglite = defineEngine({
  name: 'pglite',
  title: 'PGlite',
  family: 'postgres',
  urlForms: ['pglite:DIRECTORY', 'pglite::memory:'],
  drivers: ['@electric-sql/pglite'],
  // Runs on the server's event loop with no lock manager (see connect.ts).
  oneProcess: true,
  cancelsStatements: false,
  connect,
  compileOnlyDialect,
  introspect,
  encodeParam,
  mapError,
  readOnlyStatement,
  bulk,
  testing: { fresh: async (_, name) => `pglite:${temporaryPath(name)}` },
});
