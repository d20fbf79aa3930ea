import { DummyDriver } from 'kysely';
import type { EngineProfile } from '../engine.js';
import { connect } from './connect.js';
import { sqliteDialect } from './dialect.js';
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
  compileOnlyDialect: () => sqliteDialect(() => new DummyDriver()),
  introspect,
  limit: (query, n) => query.limit(n),
  encodeParam(type, value) {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (type === 'integer' && typeof value === 'string') return integerParam(value);
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

/**
 * SQLite integers are signed 64-bit and the driver refuses a wider BigInt; past that range
 * (MySQL's unsigned bigint range is valid elsewhere) a real compares correctly with any integer.
 */
function integerParam(value: string): bigint | number {
  const big = BigInt(value);
  return big >= -(2n ** 63n) && big < 2n ** 63n ? big : Number(value);
}
