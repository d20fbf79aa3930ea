import { defineEngine } from '../define.js';
import { mysql } from '../mysql/index.js';
import { insertReturning } from '../returning.js';

/** MariaDB speaks the MySQL protocol; introspection tells the two apart where they differ. */
export const mariadb = defineEngine({
  ...mysql,
  name: 'mariadb',
  title: 'MariaDB',
  schemes: ['mariadb'],
  urlForms: ['mariadb://USER:PASS@HOST:3306/DB'],
  // MariaDB 10.5 added `insert ... returning`
  insertReturningKeys: insertReturning(),
});
