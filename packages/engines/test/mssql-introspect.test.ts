import { ToolError } from '@mcp-db-bench/contract';
import { Kysely, sql } from 'kysely';
import { ConnectionError, RequestError } from 'tedious';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawCatalog, RawColumn } from '../src/catalog.js';
import type { AnyDb, Connection } from '../src/engine.js';
import { parseMssqlUrl } from '../src/mssql/connect.js';
import { mssql } from '../src/mssql/index.js';
import { encodeParam, nativeTypeText, normalizeDefault, portableType } from '../src/mssql/types.js';

const MSSQL_URL = process.env.MSSQL_URL;
const PREFIX = 'it_intro_';

describe('mssql pure functions', () => {
  it('maps native types to portable types', () => {
    const cases: [string, string][] = [
      ['int', 'integer'],
      ['bigint', 'integer'],
      ['tinyint', 'integer'],
      ['decimal', 'decimal'],
      ['money', 'decimal'],
      ['float', 'float'],
      ['real', 'float'],
      ['nvarchar', 'text'],
      ['uniqueidentifier', 'text'],
      ['bit', 'boolean'],
      ['date', 'date'],
      ['time', 'time'],
      ['datetime', 'timestamp'],
      ['datetime2', 'timestamp'],
      ['smalldatetime', 'timestamp'],
      ['datetimeoffset', 'timestamp'],
      ['varbinary', 'binary'],
      ['image', 'binary'],
      ['timestamp', 'binary'], // rowversion, not a date
      ['json', 'json'],
      ['geography', 'unknown'],
      ['xml', 'unknown'],
    ];
    for (const [native, portable] of cases) expect([native, portableType(native)]).toEqual([native, portable]);
  });

  it('formats native type text from sys.columns', () => {
    expect(nativeTypeText('nvarchar', 400, 0, 0)).toBe('nvarchar(200)');
    expect(nativeTypeText('nvarchar', -1, 0, 0)).toBe('nvarchar(max)');
    expect(nativeTypeText('varchar', 20, 0, 0)).toBe('varchar(20)');
    expect(nativeTypeText('varbinary', -1, 0, 0)).toBe('varbinary(max)');
    expect(nativeTypeText('decimal', 9, 12, 2)).toBe('decimal(12,2)');
    expect(nativeTypeText('datetime2', 8, 27, 7)).toBe('datetime2(7)');
    expect(nativeTypeText('INT', 4, 10, 0)).toBe('int');
  });

  it('normalises default definitions', () => {
    expect(normalizeDefault(null)).toBeNull();
    expect(normalizeDefault("('pending')")).toBe('pending');
    expect(normalizeDefault("(N'it''s')")).toBe("it's");
    expect(normalizeDefault("('(x)')")).toBe('(x)');
    expect(normalizeDefault('((0))')).toBe('0');
    expect(normalizeDefault('((-1.5))')).toBe('-1.5');
    expect(normalizeDefault('(getdate())')).toBe('CURRENT_TIMESTAMP');
    expect(normalizeDefault('(sysdatetime())')).toBe('CURRENT_TIMESTAMP');
    expect(normalizeDefault('(CURRENT_TIMESTAMP)')).toBe('CURRENT_TIMESTAMP');
    expect(normalizeDefault('(sysutcdatetime())')).toBe('CURRENT_TIMESTAMP');
    expect(normalizeDefault('(NULL)')).toBeNull();
    expect(normalizeDefault('(newid())')).toBe('newid()');
    expect(normalizeDefault('((1)+(2))')).toBe('(1)+(2)');
    expect(normalizeDefault('(CONVERT([bit],(0)))')).toBe('CONVERT([bit],(0))');
    expect(normalizeDefault("([a)]+'x')")).toBe("[a)]+'x'");
  });

  it('parses mssql:// and sqlserver:// URLs into a tedious configuration', () => {
    const config = parseMssqlUrl('mssql://sa:p%40ss@127.0.0.1:14330/bench?trustServerCertificate=true');
    expect(config).toEqual({
      server: '127.0.0.1',
      authentication: { type: 'default', options: { userName: 'sa', password: 'p@ss' } },
      options: {
        database: 'bench',
        port: 14330,
        encrypt: false, // loopback
        trustServerCertificate: true,
        readOnlyIntent: false,
        connectTimeout: 15_000,
        requestTimeout: 0,
        useUTC: true,
        lowerCaseGuids: true,
        appName: 'mcp-db-server',
      },
    });
    const remote = parseMssqlUrl('sqlserver://u:p@db.example.com/app?requestTimeout=5000');
    expect(remote.server).toBe('db.example.com');
    expect(remote.options).toMatchObject({
      port: 1433,
      encrypt: true,
      trustServerCertificate: false,
      requestTimeout: 5000,
    });
    expect(parseMssqlUrl('mssql://u:p@localhost/db?encrypt=true').options?.encrypt).toBe(true);
    const named = parseMssqlUrl('mssql://u:p@host/db?instanceName=SQLEXPRESS');
    expect(named.options).toMatchObject({ instanceName: 'SQLEXPRESS' });
    expect(named.options).not.toHaveProperty('port');
    expect(() => parseMssqlUrl('postgres://u:p@host/db')).toThrow(ToolError);
    expect(() => parseMssqlUrl('mssql://u:p@host/db?encrypt=maybe')).toThrow(/encrypt/);
  });

  it('encodes parameters', () => {
    expect(encodeParam('timestamp', '2024-03-31T01:30:00.1234567Z')).toBe('2024-03-31T01:30:00.1234567');
    expect(encodeParam('binary', 'AQI=')).toEqual(Buffer.from([1, 2]));
    expect(encodeParam('boolean', true)).toBe(true);
    expect(encodeParam('integer', '9007199254740993')).toBe('9007199254740993');
    expect(encodeParam('decimal', '12.50')).toBe('12.50');
  });

  it('maps tedious errors by class, code and number', () => {
    const request = (number: number) => Object.assign(new RequestError('server says no', 'EREQUEST'), { number });
    expect(mssql.mapError(request(208))?.code).toBe('database_error');
    expect(mssql.mapError(request(208))?.message).toMatch(/schema may have changed/);
    expect(mssql.mapError(request(245))?.code).toBe('type_mismatch');
    expect(mssql.mapError(request(3906))?.code).toBe('read_only');
    expect(mssql.mapError(request(1205))).toMatchObject({ code: 'database_error', message: 'server says no' });
    expect(mssql.mapError(new RequestError('Timeout: Request failed to complete in 50ms', 'ETIMEOUT'))?.code).toBe(
      'timeout',
    );
    expect(mssql.mapError(new RequestError('Canceled.', 'ECANCEL'))?.code).toBe('timeout');
    expect(mssql.mapError(new ConnectionError('Login failed for user', 'ELOGIN'))?.code).toBe('database_unavailable');
    expect(mssql.mapError(new ConnectionError('Failed to connect in 15000ms', 'ETIMEOUT'))?.code).toBe(
      'database_unavailable',
    );
    expect(mssql.mapError(new Error('something else'))).toBeUndefined();
  });

  it('compiles without a driver, with top for limits', () => {
    const db = new Kysely<{ t: { id: number } }>({ dialect: mssql.compileOnlyDialect() });
    const query = mssql.limit(db.selectFrom('t').selectAll(), 5).compile();
    expect(query.sql).toBe('select top(5) * from "t"');
  });

  it('reports a refused connection as database_unavailable', async () => {
    const conn = await mssql.connect('mssql://sa:x@127.0.0.1:1/master', { poolSize: 1 });
    try {
      await sql`select 1`.execute(conn.db);
      expect.unreachable();
    } catch (error) {
      expect(mssql.mapError(error)?.code).toBe('database_unavailable');
    } finally {
      await conn.close();
    }
  });
});

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

const byTable = <T extends { table: string }>(rows: T[]) => [...rows].sort((a, b) => a.table.localeCompare(b.table));

describe.skipIf(!MSSQL_URL)('mssql (live)', () => {
  let conn: Connection;
  const drop = [
    `drop view if exists ${PREFIX}parent_view`,
    `drop table if exists ${PREFIX}site, ${PREFIX}region, ${PREFIX}child, ${PREFIX}parent`,
  ];

  beforeAll(async () => {
    conn = await mssql.connect(MSSQL_URL!, { poolSize: 3 });
    await run(conn.db, drop);
    await run(conn.db, [
      `create table ${PREFIX}parent (
        id int identity(1, 1) primary key,
        name nvarchar(100) not null default 'pending',
        status varchar(20) default 'it''s',
        amount decimal(12, 2) not null default 0,
        active bit not null default 1,
        created_at datetime2(3) not null default sysdatetime(),
        big bigint,
        payload varbinary(max),
        note nvarchar(max),
        ratio float default -1.5,
        born date default '2024-01-31',
        tag uniqueidentifier default newid()
      )`,
      `create table ${PREFIX}child (
        id bigint identity(1, 1) primary key,
        parent_id int not null references ${PREFIX}parent (id),
        label nvarchar(200),
        constraint ${PREFIX}child_label_key unique (label)
      )`,
      `create index ${PREFIX}child_parent_idx on ${PREFIX}child (parent_id)`,
      `create index ${PREFIX}child_multi on ${PREFIX}child (label, parent_id)`,
      `create table ${PREFIX}region (
        country char(2) not null, code varchar(10) not null, name nvarchar(max),
        primary key (country, code)
      )`,
      `create unique index ${PREFIX}region_code_country on ${PREFIX}region (code, country)`,
      `create table ${PREFIX}site (
        country char(2) not null,
        site_no int not null,
        region_code varchar(10) not null,
        primary key (site_no, country),
        foreign key (region_code, country) references ${PREFIX}region (code, country)
      )`,
      `create index ${PREFIX}site_region_idx on ${PREFIX}site (region_code, country)`,
      `create view ${PREFIX}parent_view as select id, name from ${PREFIX}parent`,
      `insert into ${PREFIX}parent (name, amount, big) values ('a', 1.5, 9007199254740993), ('b', 2, null)`,
    ]);
  });

  afterAll(async () => {
    if (!conn) return;
    await run(conn.db, drop);
    await conn.close();
  });

  it('reads tables, columns, keys and indexes', async () => {
    const catalog = mine(await mssql.introspect(conn.db));
    expect(catalog.tables).toEqual([
      { name: `${PREFIX}child`, kind: 'table', rowEstimate: 0 },
      { name: `${PREFIX}parent`, kind: 'table', rowEstimate: 2 },
      { name: `${PREFIX}parent_view`, kind: 'view', rowEstimate: null },
      { name: `${PREFIX}region`, kind: 'table', rowEstimate: 0 },
      { name: `${PREFIX}site`, kind: 'table', rowEstimate: 0 },
    ]);
    expect(columnsOf(catalog, `${PREFIX}parent`)).toEqual([
      col(1, 'id', 'int', 'integer', { nullable: false, autoIncrement: true }),
      col(2, 'name', 'nvarchar(100)', 'text', { nullable: false, default: 'pending' }),
      col(3, 'status', 'varchar(20)', 'text', { default: "it's" }),
      col(4, 'amount', 'decimal(12,2)', 'decimal', { precision: 12, scale: 2, nullable: false, default: '0' }),
      col(5, 'active', 'bit', 'boolean', { nullable: false, default: '1' }),
      col(6, 'created_at', 'datetime2(3)', 'timestamp', { nullable: false, default: 'CURRENT_TIMESTAMP' }),
      col(7, 'big', 'bigint', 'integer'),
      col(8, 'payload', 'varbinary(max)', 'binary'),
      col(9, 'note', 'nvarchar(max)', 'text'),
      col(10, 'ratio', 'float', 'float', { default: '-1.5' }),
      col(11, 'born', 'date', 'date', { default: '2024-01-31' }),
      col(12, 'tag', 'uniqueidentifier', 'text', { default: 'newid()' }),
    ]);
    expect(columnsOf(catalog, `${PREFIX}parent_view`)).toEqual([
      col(1, 'id', 'int', 'integer', { nullable: false }),
      col(2, 'name', 'nvarchar(100)', 'text', { nullable: false }),
    ]);
    expect(byTable(catalog.primaryKeys)).toEqual([
      { table: `${PREFIX}child`, columns: ['id'] },
      { table: `${PREFIX}parent`, columns: ['id'] },
      { table: `${PREFIX}region`, columns: ['country', 'code'] },
      { table: `${PREFIX}site`, columns: ['site_no', 'country'] },
    ]);
    expect(byTable(catalog.foreignKeys)).toEqual([
      { table: `${PREFIX}child`, columns: ['parent_id'], refTable: `${PREFIX}parent`, refColumns: ['id'] },
      {
        table: `${PREFIX}site`,
        columns: ['region_code', 'country'],
        refTable: `${PREFIX}region`,
        refColumns: ['code', 'country'],
      },
    ]);
    expect([...catalog.indexes].sort((a, b) => `${a.table}.${a.name}`.localeCompare(`${b.table}.${b.name}`))).toEqual(
      [
        { table: `${PREFIX}child`, name: `${PREFIX}child_label_key`, columns: ['label'], unique: true },
        { table: `${PREFIX}child`, name: `${PREFIX}child_multi`, columns: ['label', 'parent_id'], unique: false },
        { table: `${PREFIX}child`, name: `${PREFIX}child_parent_idx`, columns: ['parent_id'], unique: false },
        { table: `${PREFIX}region`, name: `${PREFIX}region_code_country`, columns: ['code', 'country'], unique: true },
        {
          table: `${PREFIX}site`,
          name: `${PREFIX}site_region_idx`,
          columns: ['region_code', 'country'],
          unique: false,
        },
      ].map((index) => ({ ...index, ordered: true })),
    );
  });

  it('binds encoded parameters exactly', async () => {
    const p = mssql.encodeParam;
    const { rows } = await sql<{ name: string }>`
      select name from ${sql.table(`${PREFIX}parent`)}
      where big = ${p('integer', '9007199254740993')} and amount = ${p('decimal', '1.50')}
        and active = ${p('boolean', true)} and born = ${p('date', '2024-01-31')}
        and created_at > ${p('timestamp', '2000-01-01T00:00:00.5Z')}`.execute(conn.db);
    expect(rows).toEqual([{ name: 'a' }]);
  });

  it('maps real errors', async () => {
    try {
      await sql`select * from it_intro_missing`.execute(conn.db);
      expect.unreachable();
    } catch (error) {
      expect(mssql.mapError(error)).toMatchObject({ code: 'database_error' });
    }
    const url = new URL(MSSQL_URL!);
    url.password = 'definitely-wrong';
    const other = await mssql.connect(url.toString(), { poolSize: 1 });
    try {
      await sql`select 1`.execute(other.db);
      expect.unreachable();
    } catch (error) {
      expect(mssql.mapError(error)?.code).toBe('database_unavailable');
    } finally {
      await other.close();
    }
  });
});
