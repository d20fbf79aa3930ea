import {
  DummyDriver,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { EngineProfile } from '../engine.js';
import { connect } from './connect.js';
import { insertReturning } from '../returning.js';
import { mapError } from './errors.js';
import { readOnlyStatement } from './read-only.js';
import { introspect } from './introspect.js';
import { timestampToStored } from './types.js';

export const sqlite: EngineProfile = {
  name: 'sqlite',
  family: 'sqlite',
  schemes: ['sqlite'],
  drivers: ['better-sqlite3'],
  connect,
  compileOnlyDialect: () => ({
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  }),
  introspect,
  limit: (query, n) => query.limit(n),
  encodeParam(type, value) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (type === 'integer' && typeof value === 'string') return BigInt(value);
    if (type === 'decimal' && typeof value === 'string') return Number(value);
    if (type === 'timestamp' && typeof value === 'string') return timestampToStored(value);
    if (type === 'binary' && typeof value === 'string') return Buffer.from(value, 'base64');
    return value;
  },
  mapError,
  maxParameters: 32_766,
  // SQLite does not promise that `returning` rows follow the order of the values
  readOnlyStatement,
  insertReturningKeys: insertReturning(1),
};
