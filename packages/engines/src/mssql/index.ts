import { defineEngine } from '../define.js';
import { bulk } from './bulk.js';
import { compileOnlyDialect, connect } from './connect.js';
import { mapError } from './errors.js';
import { insertReturningKeys } from './insert.js';
import { introspect } from './introspect.js';
import { LEXICON } from './lexicon.js';
import { excessRights } from './rights.js';
import { sqlGuard } from './sql-guard.js';
import { encodeParam } from './types.js';

export const mssql = defineEngine({
  name: 'mssql',
  dbSystem: 'microsoft.sql_server',
  title: 'SQL Server',
  schemes: ['mssql', 'sqlserver'],
  urlForms: ['mssql://USER:PASS@HOST:1433/DB (or sqlserver://)'],
  port: 1433,
  drivers: ['tedious', 'tarn'],
  connect,
  compileOnlyDialect,
  introspect,
  limit: (query, n) => query.top(n),
  limitIn: 'text',
  encodeParam,
  mapError,
  // no readOnlyStatement (no read-only transaction): --sql is refused, and the guard waits for one
  sqlGuard,
  lexicon: LEXICON,
  excessRights,
  // 2,100 per request, one of which tedious keeps for itself
  maxParameters: 2_099,
  insertReturningKeys,
  bulk,
});
