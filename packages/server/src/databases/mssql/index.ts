import type { EngineProfile } from '../engine.js';
import { compileOnlyDialect, connect } from './connect.js';
import { mapError } from './errors.js';
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
};
