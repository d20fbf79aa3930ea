import type { EngineProfile } from '../engine.js';
import { compileOnlyDialect, connect } from './connect.js';
import { mapError } from './errors.js';
import { readOnlyStatement } from './read-only.js';
import { insertReturningKeys } from './insert.js';
import { introspect } from './introspect.js';
import { encodeParam } from './types.js';

export const mysql: EngineProfile = {
  name: 'mysql',
  family: 'mysql',
  schemes: ['mysql'],
  drivers: ['mysql2'],
  connect,
  compileOnlyDialect,
  introspect,
  limit: (query, n) => query.limit(n),
  encodeParam,
  mapError,
  maxParameters: 65_535,
  readOnlyStatement,
  insertReturningKeys,
};
