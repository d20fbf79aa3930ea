import { ansiQuote, numericBoolean, type SqlDialect, standardString } from './dialect.js';

export const sqlite: SqlDialect = {
  name: 'sqlite',
  quote: ansiQuote,
  // a backslash is an ordinary character in SQLite strings: doubling quotes is the whole escape
  string: standardString,
  boolean: numericBoolean,
  limit: (select, n) => `${select} limit ${n}`,
  tables: `select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name`,
  columns: (table) => `select name, type, "notnull" = 0 as nullable, pk from pragma_table_info(${table}) order by cid`,
  foreignKeys: `select m.name as "table", f."from" as "column", f."table" as ref_table, f."to" as ref_column, f.id as fk
    from sqlite_master m join pragma_foreign_key_list(m.name) f where m.type = 'table'`,
};
