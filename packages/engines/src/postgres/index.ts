import { defineEngine } from '../define.js';
import { explainStatement } from '../explain.js';
import { bulk } from './bulk.js';
import { compileOnlyDialect, connect } from './connect.js';
import { mapError } from './errors.js';
import { introspect } from './introspect.js';
import { LEXICON } from './lexicon.js';
import { readOnlyStatement } from './read-only.js';
import { excessRights, leastPrivilege } from './rights.js';
import { settings } from './settings.js';
import { connectSql } from './sql-connections.js';
import { sqlGuard } from './sql-guard.js';
import { sqlWarnings } from './temp-files.js';
import { encodeParam } from './types.js';

export const postgres = defineEngine({
  name: 'postgres',
  title: 'PostgreSQL',
  dbSystem: 'postgresql',
  schemes: ['postgres', 'postgresql'],
  urlForms: [
    'postgres://USER:PASS@HOST:5432/DB (or postgresql://; add ?statement_cache_size=0 behind PgBouncer before 1.21)',
  ],
  port: 5432,
  drivers: ['pg', 'pg-copy-streams'],
  connect,
  compileOnlyDialect,
  introspect,
  settings,
  encodeParam,
  mapError,
  explain: explainStatement,
  readOnlyStatement,
  sqlGuard,
  lexicon: LEXICON,
  excessRights,
  leastPrivilege,
  connectSql,
  sqlWarnings,
  bulk,
});
