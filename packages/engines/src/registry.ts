/** Every engine the server speaks, a line each: adding one is its folder and its line here. */
export { mariadb } from './mariadb/index.js';
export { mssql } from './mssql/index.js';
export { mysql } from './mysql/index.js';
export { pglite } from './pglite/index.js';
export { postgres } from './postgres/index.js';
export { sqlite } from './sqlite/index.js';
