import { numericBoolean, type SqlDialect } from './dialect.js';

/** MySQL and MariaDB. */
export const mysql: SqlDialect = {
  name: 'mysql',
  quote: (name) => `\`${name.replaceAll('`', '``')}\``,
  // A backslash escapes by default, so `x\'` would end a literal whose quotes were only doubled:
  // backslashes are doubled too. Under NO_BACKSLASH_ESCAPES `\\` reads as two backslashes, which
  // changes the value, never where the literal ends (quotes are still doubled).
  string: (value) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`,
  boolean: numericBoolean,
  limit: (select, n) => `${select} limit ${n}`,
  tables: `select table_name as name from information_schema.tables where table_schema = database() and table_type = 'BASE TABLE' order by 1`,
  columns: (table) => `select column_name as name, data_type as type, is_nullable = 'YES' as nullable,
      case when column_key = 'PRI' then ordinal_position else 0 end as pk
    from information_schema.columns where table_schema = database() and table_name = ${table} order by ordinal_position`,
  foreignKeys: `select table_name as \`table\`, column_name as \`column\`, referenced_table_name as ref_table, referenced_column_name as ref_column, constraint_name as fk
    from information_schema.key_column_usage where table_schema = database() and referenced_table_name is not null`,
};
