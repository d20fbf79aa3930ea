import { ToolError } from '@mcp-db-bench/contract';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawCatalog, RawColumn } from '../src/catalog.js';
import type { AnyDb, Connection, Engine } from '../src/engine.js';
import { loadDriver } from '../src/load-driver.js';
import { mariadb } from '../src/mariadb/index.js';
import { toMysql2Url } from '../src/mysql/connect.js';
import { mysql } from '../src/mysql/index.js';
import * as mysqlTypes from '../src/mysql/types.js';
import { postgres } from '../src/postgres/index.js';
import * as pgTypes from '../src/postgres/types.js';

// Live introspection tests. Every object is named it_intro_*, dropped before and after, and
// assertions only look at those: other suites may share the database.
const PREFIX = 'it_intro_';
const PG_URL = process.env.PG_URL;
const MYSQL_URL = process.env.MYSQL_URL;

function mine(catalog: RawCatalog): RawCatalog {
  const ours = <T extends { table: string }>(rows: T[]) => rows.filter((r) => r.table.startsWith(PREFIX));
  return {
    tables: catalog.tables.filter((t) => t.name.startsWith(PREFIX)),
    columns: ours(catalog.columns),
    primaryKeys: ours(catalog.primaryKeys),
    foreignKeys: ours(catalog.foreignKeys),
    indexes: ours(catalog.indexes),
  };
}

/** Columns of one table without the table name, for compact expectations. */
function columnsOf(catalog: RawCatalog, table: string): Omit<RawColumn, 'table'>[] {
  return catalog.columns.filter((c) => c.table === table).map(({ table: _, ...rest }) => rest);
}

function col(
  ordinal: number,
  name: string,
  nativeType: string,
  type: RawColumn['type'],
  extra: Partial<Omit<RawColumn, 'table' | 'name' | 'ordinal' | 'nativeType' | 'type'>> = {},
): Omit<RawColumn, 'table'> {
  return {
    name,
    ordinal,
    nativeType,
    type,
    precision: null,
    scale: null,
    nullable: true,
    default: null,
    autoIncrement: false,
    ...extra,
  };
}

async function run(db: AnyDb, statements: string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

async function expectToolError(promise: Promise<unknown>, profile: Engine): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    const mapped = profile.mapError(error);
    expect(mapped, String(error)).toBeInstanceOf(ToolError);
    return mapped!;
  }
  throw new Error('expected the statement to fail');
}

// Shared expectations: the same schema on every engine.
const EXPECTED_KEYS = {
  primaryKeys: [
    { table: `${PREFIX}child`, columns: ['id'] },
    { table: `${PREFIX}parent`, columns: ['id'] },
    { table: `${PREFIX}region`, columns: ['country', 'code'] },
    // declared (site_no, country): key order, not column order
    { table: `${PREFIX}site`, columns: ['site_no', 'country'] },
  ],
  foreignKeys: [
    { table: `${PREFIX}child`, columns: ['parent_id'], refTable: `${PREFIX}parent`, refColumns: ['id'] },
    // declared (region_code, country) -> (code, country): pairs must survive
    {
      table: `${PREFIX}site`,
      columns: ['region_code', 'country'],
      refTable: `${PREFIX}region`,
      refColumns: ['code', 'country'],
    },
  ],
  indexes: [
    { table: `${PREFIX}child`, name: `${PREFIX}child_label_key`, columns: ['label'], unique: true },
    { table: `${PREFIX}child`, name: `${PREFIX}child_multi`, columns: ['label', 'parent_id'], unique: false },
    { table: `${PREFIX}child`, name: `${PREFIX}child_parent_idx`, columns: ['parent_id'], unique: false },
    { table: `${PREFIX}region`, name: `${PREFIX}region_code_country`, columns: ['code', 'country'], unique: true },
    { table: `${PREFIX}site`, name: `${PREFIX}site_region_idx`, columns: ['region_code', 'country'], unique: false },
    // every one a plain B-tree: ordered (ordered-indexes.test.ts has the other kinds)
  ].map((index) => ({ ...index, ordered: true })),
};

function sortIndexes(catalog: RawCatalog) {
  return [...catalog.indexes].sort((a, b) => `${a.table}.${a.name}`.localeCompare(`${b.table}.${b.name}`));
}

function sortByTable<T extends { table: string }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => a.table.localeCompare(b.table));
}

describe('pure functions', () => {
  it('normalises PostgreSQL defaults', () => {
    const n = pgTypes.normalizeDefault;
    expect(n(null)).toBeNull();
    expect(n("'pending'::text")).toBe('pending');
    expect(n("'it''s'::character varying")).toBe("it's");
    expect(n('\'a\'::"Mood"')).toBe('a');
    expect(n("'-1'::integer")).toBe('-1');
    expect(n('1.50')).toBe('1.50');
    expect(n('NULL::text')).toBeNull();
    expect(n('now()')).toBe('CURRENT_TIMESTAMP');
    expect(n('CURRENT_TIMESTAMP(3)')).toBe('CURRENT_TIMESTAMP');
    expect(n("E'a\\nb'::text")).toBe('a\nb');
    expect(n("'a'::text || 'b'::text")).toBe("'a'::text || 'b'::text");
    expect(n('gen_random_uuid()')).toBe('gen_random_uuid()');
  });

  it('maps PostgreSQL types', () => {
    expect(pgTypes.portableType('int8')).toBe('integer');
    expect(pgTypes.portableType('mood', 'e')).toBe('text');
    expect(pgTypes.portableType('timetz')).toBe('unknown');
    expect(pgTypes.portableType('_int4')).toBe('unknown');
    expect(pgTypes.numericPrecision('numeric', (12 << 16) + 2 + 4)).toEqual({ precision: 12, scale: 2 });
    expect(pgTypes.numericPrecision('numeric', -1)).toEqual({ precision: null, scale: null });
  });

  it('normalises MySQL 8 and MariaDB defaults', () => {
    const n = mysqlTypes.normalizeDefault;
    // MySQL 8: literals bare, NULL default is SQL NULL
    expect(n('pending', false)).toBe('pending');
    expect(n('NULL', false)).toBe('NULL'); // a string default 'NULL'
    expect(n('CURRENT_TIMESTAMP', false)).toBe('CURRENT_TIMESTAMP');
    expect(n('CURRENT_TIMESTAMP(6)', false)).toBe('CURRENT_TIMESTAMP');
    expect(n('uuid()', false)).toBe('uuid()');
    // MariaDB: literals quoted and escaped, NULL as a word
    expect(n("'pending'", true)).toBe('pending');
    expect(n("'it''s'", true)).toBe("it's");
    expect(n("'a\\\\b'", true)).toBe('a\\b');
    expect(n("'NULL'", true)).toBe('NULL');
    expect(n('NULL', true)).toBeNull();
    expect(n('current_timestamp()', true)).toBe('CURRENT_TIMESTAMP');
    expect(n('-1', true)).toBe('-1');
    expect(n('(1 + 1)', true)).toBe('(1 + 1)');
  });

  it('maps MySQL types and encodes parameters for exact comparison', () => {
    expect(mysqlTypes.portableType('tinyint', 'tinyint(1)')).toBe('boolean');
    expect(mysqlTypes.portableType('tinyint', 'tinyint(4)')).toBe('integer');
    expect(mysqlTypes.portableType('bit', 'bit(8)')).toBe('binary');
    expect(mysqlTypes.portableType('longtext', 'longtext', true)).toBe('json');
    expect(mysqlTypes.portableType('geometry', 'geometry')).toBe('unknown');
    const p = mysqlTypes.encodeParam;
    expect(p('integer', '9007199254740993')).toBe(9007199254740993n);
    expect(p('integer', 42)).toBe(42);
    expect((p('decimal', '12.50') as { toSqlString(): string }).toSqlString()).toBe('12.50');
    expect(p('timestamp', '2024-03-31T01:30:00.5Z')).toBe('2024-03-31 01:30:00.5');
    expect(p('boolean', false)).toBe(0);
    expect(toMysql2Url('mariadb://u:p%40@h:3307/db?dateStrings=false&ssl=x')).toBe('mysql://u:p%40@h:3307/db?ssl=x');
  });

  it('reports a missing driver package with the install command', async () => {
    const error = await loadDriver('postgres', 'mcp-db-bench-no-such-driver').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({
      code: 'database_unavailable',
      message:
        "The postgres driver is not installed: run 'npm install mcp-db-bench-no-such-driver' (under npx, add '-p mcp-db-bench-no-such-driver')",
    });
    // CommonJS packages come back as their module.exports
    const pg = await loadDriver<{ Pool: unknown; types: unknown }>('postgres', 'pg');
    expect(typeof pg.Pool).toBe('function');
  });

  it('compiles without a driver', () => {
    for (const [profile, expected] of [
      [postgres, 'select * from "t" limit $1'],
      [mysql, 'select * from `t` limit ?'],
    ] as const) {
      const db = new Kysely<{ t: { id: number } }>({ dialect: profile.compileOnlyDialect() });
      expect(profile.limit(db.selectFrom('t').selectAll(), 5).compile().sql).toBe(expected);
    }
  });
});

describe.skipIf(!PG_URL)('postgres', () => {
  const profile = postgres;
  let conn: Connection;
  const drop = [
    `drop view if exists ${PREFIX}parent_view`,
    `drop table if exists ${PREFIX}site, ${PREFIX}region, ${PREFIX}child, ${PREFIX}parent`,
  ];

  beforeAll(async () => {
    conn = await profile.connect(PG_URL!, { poolSize: 3 });
    await run(conn.db, drop);
    await run(conn.db, [
      `create table ${PREFIX}parent (
        id serial primary key,
        name text not null default 'pending',
        status varchar(20) default 'it''s',
        amount numeric(12,2) not null default 0,
        active boolean not null default true,
        created_at timestamptz not null default current_timestamp,
        big bigint,
        payload bytea,
        note text,
        ratio double precision default -1.5,
        born date default '2024-01-31',
        doc jsonb,
        price money,
        tag uuid default gen_random_uuid()
      )`,
      `create index ${PREFIX}parent_lower_idx on ${PREFIX}parent (lower(name))`,
      `create table ${PREFIX}child (
        id bigint generated always as identity primary key,
        parent_id integer not null references ${PREFIX}parent (id),
        label varchar(200),
        constraint ${PREFIX}child_label_key unique (label)
      )`,
      `create index ${PREFIX}child_parent_idx on ${PREFIX}child (parent_id)`,
      `create index ${PREFIX}child_multi on ${PREFIX}child (label, parent_id)`,
      `create table ${PREFIX}region (
        country char(2), code varchar(10), name text,
        primary key (country, code)
      )`,
      `create unique index ${PREFIX}region_code_country on ${PREFIX}region (code, country)`,
      `create table ${PREFIX}site (
        country char(2) not null,
        site_no integer not null,
        region_code varchar(10) not null,
        primary key (site_no, country),
        foreign key (region_code, country) references ${PREFIX}region (code, country)
      )`,
      `create index ${PREFIX}site_region_idx on ${PREFIX}site (region_code, country)`,
      `create view ${PREFIX}parent_view as select id, name from ${PREFIX}parent`,
      `insert into ${PREFIX}parent (name, amount, big, price) values ('a', 1.5, 9007199254740993, 1234.5), ('b', 2, null, -3)`,
      `analyze ${PREFIX}parent`,
    ]);
  });

  afterAll(async () => {
    if (!conn) return;
    await run(conn.db, drop);
    await conn.close();
  });

  it('reads tables, views and row estimates', async () => {
    const catalog = mine(await profile.introspect(conn.db));
    expect(catalog.tables).toEqual([
      { name: `${PREFIX}child`, kind: 'table', rowEstimate: null }, // never analyzed
      { name: `${PREFIX}parent`, kind: 'table', rowEstimate: 2 },
      { name: `${PREFIX}parent_view`, kind: 'view', rowEstimate: null },
      { name: `${PREFIX}region`, kind: 'table', rowEstimate: null },
      { name: `${PREFIX}site`, kind: 'table', rowEstimate: null },
    ]);
  });

  it('reads columns with portable types, precision, nullability and defaults', async () => {
    const catalog = mine(await profile.introspect(conn.db));
    expect(columnsOf(catalog, `${PREFIX}parent`)).toEqual([
      col(1, 'id', 'integer', 'integer', { nullable: false, autoIncrement: true }),
      col(2, 'name', 'text', 'text', { nullable: false, default: 'pending' }),
      col(3, 'status', 'character varying(20)', 'text', { default: "it's" }),
      col(4, 'amount', 'numeric(12,2)', 'decimal', { precision: 12, scale: 2, nullable: false, default: '0' }),
      col(5, 'active', 'boolean', 'boolean', { nullable: false, default: '1' }),
      col(6, 'created_at', 'timestamp with time zone', 'timestamp', {
        nullable: false,
        default: 'CURRENT_TIMESTAMP',
      }),
      col(7, 'big', 'bigint', 'integer'),
      col(8, 'payload', 'bytea', 'binary'),
      col(9, 'note', 'text', 'text'),
      col(10, 'ratio', 'double precision', 'float', { default: '-1.5' }),
      col(11, 'born', 'date', 'date', { default: '2024-01-31' }),
      col(12, 'doc', 'jsonb', 'json'),
      col(13, 'price', 'money', 'decimal', { precision: 19, scale: 2 }),
      col(14, 'tag', 'uuid', 'text', { default: 'gen_random_uuid()' }),
    ]);
    expect(columnsOf(catalog, `${PREFIX}child`)).toEqual([
      col(1, 'id', 'bigint', 'integer', { nullable: false, autoIncrement: true }),
      col(2, 'parent_id', 'integer', 'integer', { nullable: false }),
      col(3, 'label', 'character varying(200)', 'text'),
    ]);
    expect(columnsOf(catalog, `${PREFIX}parent_view`)).toEqual([
      col(1, 'id', 'integer', 'integer'),
      col(2, 'name', 'text', 'text'),
    ]);
  });

  it('reads keys, paired foreign keys and secondary indexes without the primary key', async () => {
    const catalog = mine(await profile.introspect(conn.db));
    expect(sortByTable(catalog.primaryKeys)).toEqual(EXPECTED_KEYS.primaryKeys);
    expect(sortByTable(catalog.foreignKeys)).toEqual(EXPECTED_KEYS.foreignKeys);
    // the expression index on lower(name) is left out
    expect(sortIndexes(catalog)).toEqual(EXPECTED_KEYS.indexes);
  });

  it('returns lossless raw values', async () => {
    const { rows } = await sql<Record<string, unknown>>`
      select big, amount, price, created_at, born, payload, active, doc, ratio
      from ${sql.table(`${PREFIX}parent`)} where name = 'a'`.execute(conn.db);
    expect(rows[0]).toMatchObject({
      big: '9007199254740993',
      amount: '1.50',
      price: '1234.50',
      born: '2024-01-31',
      payload: null,
      active: true,
      doc: null,
      ratio: -1.5,
    });
    expect(rows[0]!.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/);
    const { rows: more } = await sql<Record<string, unknown>>`
      select '12:34:56.789'::time as t, '1 day'::interval as i, '{"a":1}'::jsonb as j,
        '\\x0102'::bytea as b, '-1234.5'::money as m, 2::int4 as n`.execute(conn.db);
    expect(more[0]).toEqual({
      t: '12:34:56.789',
      i: '1 day',
      j: { a: 1 },
      b: Buffer.from([1, 2]),
      m: '-1234.50',
      n: 2,
    });
  });

  it('binds encoded parameters exactly', async () => {
    const p = profile.encodeParam;
    const table = sql.table(`${PREFIX}parent`);
    const { rows } = await sql<{ name: string }>`
      select name from ${table}
      where big = ${p('integer', '9007199254740993')} and amount = ${p('decimal', '1.50')}
        and active = ${p('boolean', true)} and born = ${p('date', '2024-01-31')}
        and created_at > ${p('timestamp', '2000-01-01T00:00:00.5Z')}`.execute(conn.db);
    expect(rows).toEqual([{ name: 'a' }]);
    const { rows: bin } = await sql<{ ok: boolean }>`
      select ${p('binary', 'AQI=')}::bytea = '\\x0102'::bytea as ok`.execute(conn.db);
    expect(bin).toEqual([{ ok: true }]);
  });

  it('maps errors by SQLSTATE', async () => {
    const missing = await expectToolError(sql`select * from it_intro_missing`.execute(conn.db), profile);
    expect(missing.code).toBe('database_error');
    expect(missing.message).toMatch(/schema may have changed/);
    const mismatch = await expectToolError(sql`select 'abc'::int4`.execute(conn.db), profile);
    expect(mismatch.code).toBe('type_mismatch');
    const timeout = await expectToolError(
      (conn.db as Kysely<unknown>).transaction().execute(async (trx) => {
        await sql`set local statement_timeout = 50`.execute(trx);
        await sql`select pg_sleep(2)`.execute(trx);
      }),
      profile,
    );
    expect(timeout.code).toBe('timeout');
    const readOnly = await expectToolError(
      (conn.db as Kysely<unknown>).transaction().execute(async (trx) => {
        await sql`set transaction read only`.execute(trx);
        await sql`delete from ${sql.table(`${PREFIX}region`)}`.execute(trx);
      }),
      profile,
    );
    expect(readOnly.code).toBe('read_only');
    expect(profile.mapError(new Error('something else'))).toBeUndefined();
  });

  it('maps bad credentials and a refused connection to database_unavailable', async () => {
    const url = new URL(PG_URL!);
    url.password = 'definitely-wrong';
    for (const target of [url.toString(), 'postgres://bench:bench@127.0.0.1:1/bench']) {
      const other = await profile.connect(target, { poolSize: 1 });
      try {
        const error = await expectToolError(sql`select 1`.execute(other.db), profile);
        expect(error.code).toBe('database_unavailable');
      } finally {
        await other.close();
      }
    }
  });
});

describe.skipIf(!MYSQL_URL)('mysql / mariadb', () => {
  const profile = mysql;
  let conn: Connection;
  let isMariaDb = false;
  const drop = [
    `drop view if exists ${PREFIX}parent_view`,
    `drop table if exists ${PREFIX}site, ${PREFIX}region, ${PREFIX}child, ${PREFIX}parent`,
  ];

  beforeAll(async () => {
    conn = await profile.connect(MYSQL_URL!, { poolSize: 3 });
    const { rows } = await sql<{ v: string }>`select version() as v`.execute(conn.db);
    isMariaDb = /mariadb/i.test(rows[0]!.v);
    await run(conn.db, drop);
    await run(conn.db, [
      `create table ${PREFIX}parent (
        id int auto_increment primary key,
        name varchar(100) not null default 'pending',
        status varchar(20) default 'it''s',
        amount decimal(12,2) not null default 0,
        active boolean not null default true,
        created_at timestamp(6) not null default current_timestamp(6),
        big bigint,
        payload varbinary(255),
        note text,
        ratio double default -1.5,
        born date default '2024-01-31',
        doc json,
        flag bit(1) default b'1',
        kind enum('a', 'b') default 'a'
      ) engine=InnoDB`,
      `create table ${PREFIX}child (
        id bigint auto_increment primary key,
        parent_id int not null,
        label varchar(200),
        unique key ${PREFIX}child_label_key (label),
        key ${PREFIX}child_parent_idx (parent_id),
        key ${PREFIX}child_multi (label, parent_id),
        foreign key (parent_id) references ${PREFIX}parent (id)
      ) engine=InnoDB`,
      `create table ${PREFIX}region (
        country char(2), code varchar(10), name text,
        primary key (country, code),
        unique key ${PREFIX}region_code_country (code, country)
      ) engine=InnoDB`,
      `create table ${PREFIX}site (
        country char(2) not null,
        site_no int not null,
        region_code varchar(10) not null,
        primary key (site_no, country),
        key ${PREFIX}site_region_idx (region_code, country),
        foreign key (region_code, country) references ${PREFIX}region (code, country)
      ) engine=InnoDB`,
      `create view ${PREFIX}parent_view as select id, name from ${PREFIX}parent`,
      `insert into ${PREFIX}parent (name, amount, big, payload, doc) values
        ('a', 1.5, 9007199254740993, x'0102', '{"a":1}'), ('b', 2, null, null, null)`,
      `analyze table ${PREFIX}parent`,
    ]);
  });

  afterAll(async () => {
    if (!conn) return;
    await run(conn.db, drop);
    await conn.close();
  });

  it('reads tables, views and row estimates', async () => {
    const catalog = mine(await profile.introspect(conn.db));
    expect(catalog.tables.map((t) => [t.name, t.kind])).toEqual([
      [`${PREFIX}child`, 'table'],
      [`${PREFIX}parent`, 'table'],
      [`${PREFIX}parent_view`, 'view'],
      [`${PREFIX}region`, 'table'],
      [`${PREFIX}site`, 'table'],
    ]);
    const byName = new Map(catalog.tables.map((t) => [t.name, t.rowEstimate]));
    expect(byName.get(`${PREFIX}parent`)).toBe(2);
    expect(byName.get(`${PREFIX}parent_view`)).toBeNull();
    expect(typeof byName.get(`${PREFIX}child`)).toBe('number');
  });

  it('reads columns with portable types, precision, nullability and defaults', async () => {
    const catalog = mine(await profile.introspect(conn.db));
    // MariaDB keeps the display widths MySQL 8 dropped, and JSON is longtext + json_valid()
    const int = isMariaDb ? 'int(11)' : 'int';
    const bigint = isMariaDb ? 'bigint(20)' : 'bigint';
    expect(columnsOf(catalog, `${PREFIX}parent`)).toEqual([
      col(1, 'id', int, 'integer', { nullable: false, autoIncrement: true }),
      col(2, 'name', 'varchar(100)', 'text', { nullable: false, default: 'pending' }),
      col(3, 'status', 'varchar(20)', 'text', { default: "it's" }),
      col(4, 'amount', 'decimal(12,2)', 'decimal', { precision: 12, scale: 2, nullable: false, default: '0.00' }),
      col(5, 'active', 'tinyint(1)', 'boolean', { nullable: false, default: '1' }),
      col(6, 'created_at', 'timestamp(6)', 'timestamp', { nullable: false, default: 'CURRENT_TIMESTAMP' }),
      col(7, 'big', bigint, 'integer'),
      col(8, 'payload', 'varbinary(255)', 'binary'),
      col(9, 'note', 'text', 'text'),
      col(10, 'ratio', 'double', 'float', { default: '-1.5' }),
      col(11, 'born', 'date', 'date', { default: '2024-01-31' }),
      col(12, 'doc', isMariaDb ? 'longtext' : 'json', 'json'),
      col(13, 'flag', 'bit(1)', 'boolean', { default: "b'1'" }),
      col(14, 'kind', "enum('a','b')", 'text', { default: 'a' }),
    ]);
    expect(columnsOf(catalog, `${PREFIX}child`)).toEqual([
      col(1, 'id', bigint, 'integer', { nullable: false, autoIncrement: true }),
      col(2, 'parent_id', int, 'integer', { nullable: false }),
      col(3, 'label', 'varchar(200)', 'text'),
    ]);
    // information_schema gives view columns their base column's default (or MariaDB's implicit
    // '0'); a view has no defaults of its own. Nullability comes from the base column.
    expect(columnsOf(catalog, `${PREFIX}parent_view`)).toEqual([
      col(1, 'id', int, 'integer', { nullable: false }),
      col(2, 'name', 'varchar(100)', 'text', { nullable: false }),
    ]);
  });

  it('reads keys, paired foreign keys and secondary indexes without the primary key', async () => {
    const catalog = mine(await profile.introspect(conn.db));
    expect(sortByTable(catalog.primaryKeys)).toEqual(EXPECTED_KEYS.primaryKeys);
    expect(sortByTable(catalog.foreignKeys)).toEqual(EXPECTED_KEYS.foreignKeys);
    expect(sortIndexes(catalog)).toEqual(EXPECTED_KEYS.indexes);
  });

  it('returns lossless raw values in UTC', async () => {
    const table = sql.table(`${PREFIX}parent`);
    const { rows } = await sql<Record<string, unknown>>`
      select big, amount, born, payload, active, flag, ratio, kind,
        timestamp'2024-03-31 01:30:00.123456' as ts, time'12:34:56.5' as t, @@session.time_zone as tz
      from ${table} where name = 'a'`.execute(conn.db);
    expect(rows[0]).toEqual({
      big: '9007199254740993',
      amount: '1.50',
      born: '2024-01-31',
      payload: Buffer.from([1, 2]),
      active: 1,
      flag: true,
      ratio: -1.5,
      kind: 'a',
      ts: '2024-03-31 01:30:00.123456',
      t: '12:34:56.5',
      tz: '+00:00',
    });
  });

  it('binds encoded parameters exactly', async () => {
    const p = profile.encodeParam;
    const table = sql.table(`${PREFIX}parent`);
    // 9007199254740992 equals the big value when compared as a double: only an exact bind misses it
    const { rows: none } = await sql<{ name: string }>`
      select name from ${table} where big = ${p('integer', '9007199254740992')}`.execute(conn.db);
    expect(none).toEqual([]);
    const { rows } = await sql<{ name: string }>`
      select name from ${table}
      where big = ${p('integer', '9007199254740993')} and amount = ${p('decimal', '1.50')}
        and active = ${p('boolean', true)} and born = ${p('date', '2024-01-31')}
        and payload = ${p('binary', 'AQI=')}
        and created_at > ${p('timestamp', '2000-01-01T00:00:00.5Z')}`.execute(conn.db);
    expect(rows).toEqual([{ name: 'a' }]);
  });

  it('maps errors by error number', async () => {
    const missing = await expectToolError(sql`select * from it_intro_missing`.execute(conn.db), profile);
    expect(missing.code).toBe('database_error');
    expect(missing.message).toMatch(/schema may have changed/);
    const badColumn = await expectToolError(
      sql`select nope from ${sql.table(`${PREFIX}parent`)}`.execute(conn.db),
      profile,
    );
    expect(badColumn.message).toMatch(/schema may have changed/);
    const readOnly = await expectToolError(
      (conn.db as Kysely<unknown>)
        .transaction()
        .setAccessMode('read only')
        .execute(async (trx) => {
          await sql`delete from ${sql.table(`${PREFIX}region`)}`.execute(trx);
        }),
      profile,
    );
    expect(readOnly.code).toBe('read_only');
    const mismatch = await expectToolError(
      (conn.db as Kysely<unknown>).transaction().execute(async (trx) => {
        await sql`insert into ${sql.table(`${PREFIX}region`)} (country, code, name) values ('xx', 'y', 'z')`.execute(
          trx,
        );
        await sql`update ${sql.table(`${PREFIX}parent`)} set amount = 'abc'`.execute(trx);
      }),
      profile,
    );
    expect(mismatch.code).toBe('type_mismatch');
    if (isMariaDb) {
      const timeout = await expectToolError(
        sql`set statement max_statement_time = 0.05 for select sleep(2)`.execute(conn.db),
        profile,
      );
      expect(timeout.code).toBe('timeout');
    }
    expect(profile.mapError(new Error('something else'))).toBeUndefined();
  });

  it('maps bad credentials and a refused connection to database_unavailable', async () => {
    const url = new URL(MYSQL_URL!);
    url.password = 'definitely-wrong';
    for (const target of [url.toString(), 'mysql://bench:bench@127.0.0.1:1/bench']) {
      const other = await profile.connect(target, { poolSize: 1 });
      try {
        const error = await expectToolError(sql`select 1`.execute(other.db), profile);
        expect(error.code).toBe('database_unavailable');
      } finally {
        await other.close();
      }
    }
  });

  it('connects through a mariadb:// URL with the mariadb profile', async () => {
    expect(mariadb.schemes).toEqual(['mariadb']);
    expect(mysql.schemes).toEqual(['mysql']);
    const other = await mariadb.connect(MYSQL_URL!.replace(/^mysql:/, 'mariadb:'), { poolSize: 1 });
    try {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(other.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await other.close();
    }
  });
});
