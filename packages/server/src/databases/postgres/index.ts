import type { EngineProfile } from '../engine.js';
import { compileOnlyDialect, connect } from './connect.js';
import { insertReturning } from '../returning.js';
import { mapError } from './errors.js';
import { readOnlyStatement } from './read-only.js';
import { introspect } from './introspect.js';
import { encodeParam } from './types.js';

export const postgres: EngineProfile = {
  name: 'postgres',
  family: 'postgres',
  schemes: ['postgres', 'postgresql'],
  drivers: ['pg'],
  connect,
  compileOnlyDialect,
  introspect,
  limit: (query, n) => query.limit(n),
  encodeParam,
  mapError,
  maxParameters: 65_535,
  readOnlyStatement,
  insertReturningKeys: insertReturning(),
};
