import type { EngineProfile } from '../engine.js';
import { compileOnlyDialect, connect } from './connect.js';
import { mapError } from './errors.js';
import { insertReturningKeys } from './insert.js';
import { introspect } from './introspect.js';
import { encodeParam } from './types.js';

export const mssql: EngineProfile = {
  name: 'mssql',
  family: 'mssql',
  schemes: ['mssql', 'sqlserver'],
  drivers: ['tedious', 'tarn'],
  connect,
  compileOnlyDialect,
  introspect,
  limit: (query, n) => query.top(n),
  encodeParam,
  mapError,
  // 2,100 per request, one of which tedious keeps for itself
  maxParameters: 2_099,
  insertReturningKeys,
};
