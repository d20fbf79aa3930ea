import { defineEngine } from '../define.js';
import { explainStatement } from '../explain.js';
import { bulk } from './bulk.js';
import { checkUrl, compileOnlyDialect, connect, connectSql } from './connect.js';
import { mapError } from './errors.js';
import { insertReturningKeys } from './insert.js';
import { introspect } from './introspect.js';
import { LEXICON } from './lexicon.js';
import { readOnlyStatement } from './read-only.js';
import { excessRights, leastPrivilege } from './rights.js';
import { settings } from './settings.js';
import { sqlGuard } from './sql-guard.js';
import { encodeParam } from './types.js';

export const mysql = defineEngine({
  name: 'mysql',
  title: 'MySQL',
  urlForms: ['mysql://USER:PASS@HOST:3306/DB'],
  port: 3306,
  drivers: ['mysql2'],
  checkUrl,
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
  insertReturningKeys,
  bulk,
});
