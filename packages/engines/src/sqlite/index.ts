import { DummyDriver } from 'kysely';
import { defineEngine } from '../define.js';
import { explainStatement } from '../explain.js';
import { insertReturning } from '../returning.js';
import { bulk } from './bulk.js';
import { connect, connectSql } from './connect.js';
import { sqliteDialect } from './dialect.js';
import { mapError } from './errors.js';
import { introspect } from './introspect.js';
import { LEXICON } from './lexicon.js';
import { readOnlyStatement } from './read-only.js';
import { settings } from './settings.js';
import { sqlGuard } from './sql-guard.js';
import { timestampToStored } from './types.js';

export const sqlite = defineEngine({
  name: 'sqlite',
  title: 'SQLite',
  urlForms: ['sqlite:PATH', 'sqlite::memory:'],
  drivers: ['better-sqlite3'],
  connect,
  connectSql,
  compileOnlyDialect: () => sqliteDialect(() => new DummyDriver()),
  introspect,
  settings,
  // a literal: SQLite plans anew for a bound LIMIT at every run (sqlite/dialect.ts)
  limitIn: 'text',
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
  explain: explainStatement,
  readOnlyStatement,
  sqlGuard,
  lexicon: LEXICON,
  // SQLite does not promise that `returning` rows follow the order of the values
  insertReturningKeys: insertReturning(1),
  bulk,
});

/**
 * SQLite integers are signed 64-bit and the driver refuses a wider BigInt; past that range
 * (MySQL's unsigned bigint range is valid elsewhere) a real compares correctly with any integer.
 */
function integerParam(value: string): bigint | number {
  const big = BigInt(value);
  return big >= -(2n ** 63n) && big < 2n ** 63n ? big : Number(value);
}
