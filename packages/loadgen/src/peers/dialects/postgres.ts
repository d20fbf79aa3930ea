import { ansiQuote, type SqlDialect } from './dialect.js';

export const postgres: SqlDialect = {
  name: 'postgres',
  quote: ansiQuote,
  // An escape string (E'...'), backslashes and quotes doubled: it reads the same whether
  // standard_conforming_strings is on or off, where a plain '...' lets `\'` end the literal
  // when it is off. Refusing backslashes instead would lose values that hold them (paths,
  // patterns). backslash_quote only concerns `\'`, which is never written.
  string: (value) => `E'${value.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`,
  // PostgreSQL compares a boolean column with TRUE/FALSE, not with 1/0
  boolean: (value) => (value ? 'true' : 'false'),
  limit: (select, n) => `${select} limit ${n}`,
  tables: `select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`,
  columns: (
    table,
  ) => `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable,
      -- indkey counts from 0: its position made 1-based, so the first key column is not read as 0 (none)
      coalesce(array_position(i.indkey::int2[], a.attnum) - array_lower(i.indkey::int2[], 1) + 1, 0) as pk
    from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    left join pg_index i on i.indrelid = c.oid and i.indisprimary
    where c.relname = ${table} and n.nspname = current_schema() and a.attnum > 0 and not a.attisdropped order by a.attnum`,
  foreignKeys: `select cl.relname as "table", a.attname as "column", rc.relname as ref_table, ra.attname as ref_column, con.oid::text as fk
    from pg_constraint con join pg_class cl on cl.oid = con.conrelid join pg_class rc on rc.oid = con.confrelid
    join pg_namespace n on n.oid = cl.relnamespace
    cross join lateral unnest(con.conkey, con.confkey) as k(col, ref)
    join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.col
    join pg_attribute ra on ra.attrelid = con.confrelid and ra.attnum = k.ref
    where con.contype = 'f' and n.nspname = current_schema()`,
};
