import type { EngineProfile } from '../engine.js';
import { insertReturning } from '../returning.js';
import { mysql } from '../mysql/index.js';

/** MariaDB speaks the MySQL protocol; introspection tells the two apart where they differ. */
export const mariadb: EngineProfile = {
  ...mysql,
  name: 'mariadb',
  schemes: ['mariadb'],
  // MariaDB 10.5 added `insert ... returning`
  insertReturningKeys: insertReturning(),
};
