import { CompiledQuery, sql } from 'kysely';
import type { AnyDb } from '../engine.js';
import { recreateOnServer } from '../testing/databases.js';
import type { EngineTesting, PlanReading, TestFacts } from '../testing/facts.js';
import { connect } from './connect.js';
import { paritySchema } from './parity-schema.js';

const LOCK_NAME = 'mcp_db_bench_guard';

/** What the shared test suites write in MySQL's SQL (MariaDB shares it). */
export const testFacts: TestFacts = {
  shopTypes: {
    int: 'int',
    bigint: 'bigint',
    text100: 'varchar(100)',
    text20: 'varchar(20)',
    bool: 'boolean',
    money: 'decimal(12,2)',
    ts: 'datetime(3)',
  },
  notesTable:
    'create table notes (id integer auto_increment primary key, customer_id integer, ' +
    'body varchar(100) not null, n integer not null default 0)',
  paritySchema,
  slow: {
    statement: 'select sleep(30) as slept',
    view: 'create view slow_view as select 1 as id, sleep(30) as slept',
    running:
      'select id, command, time, state, info from information_schema.processlist ' +
      "where db = database() and (info like '%sleep(30)%' or info like '%slow_view%') and id <> connection_id()",
  },
  shortSlowView: 'create view slow_view as select 1 as id, sleep(1.5) as slept',
  largeAnswer: {
    statement: (mib) =>
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${Math.ceil(mib / 8)}) ` +
      "select repeat('x', 8 * 1024 * 1024) as v from n",
    running:
      "select id, command, info from information_schema.processlist where db = database() and info like '%repeat(%' " +
      "and command <> 'Sleep' and id <> connection_id()",
  },
  sleep: (s) => sql`select sleep(${s})`,
  sessions: sql`select count(*) as total, coalesce(sum(command <> 'Sleep'), 0) as busy
    from information_schema.processlist
    where db = database() and id <> connection_id()`,
  waitingWrite:
    'select count(*) as n from information_schema.processlist ' +
    "where info like 'update%customers%' and id <> connection_id()",
  excessRights: { asks: /user_privileges[\s\S]*'FILE', 'SUPER'/, ofAdmin: ['FILE', 'SUPER'] },
  hostProbe: {
    writeFile: (path) => sql`select 1 into outfile ${sql.lit(path)}`,
    fileExists: (path) => sql`select load_file(${sql.lit(path)}) is not null as present`,
    locksHeld: () => sql`select count(is_used_lock(${sql.lit(LOCK_NAME)})) as n`,
    lockingFunction: [
      `create function take_lock() returns integer not deterministic no sql return get_lock('${LOCK_NAME}', 0)`,
    ],
    connectionId: 'select connection_id() as id',
  },
  // InnoDB's secondary index entries end with the primary key
  plan: { read: readPlan, keyEndsIndex: true },
};

/** `explain`: access type `ALL` reads the table whole and `index` the whole of an index; `Using filesort` is a sort. */
async function readPlan(db: AnyDb, query: CompiledQuery): Promise<PlanReading> {
  const { rows } = await db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
  );
  const text = (row: Record<string, unknown>) =>
    `${String(row.table)}: ${String(row.type)}${row.key ? ` using ${String(row.key)}` : ''}${row.Extra ? ` (${String(row.Extra)})` : ''}`;
  return {
    scans: rows.filter((r) => r.type === 'ALL' || r.type === 'index').map((r) => String(r.table)),
    sorts: rows.filter((r) => /filesort/.test(String(r.Extra ?? ''))).length,
    text: rows.map(text).join('\n'),
  };
}

/** An empty database on a MySQL or MariaDB server, for tests. */
export const freshDatabase = (baseUrl: string, name: string) =>
  recreateOnServer(connect, baseUrl, name, (id) => [
    sql`drop database if exists ${id}`,
    sql`create database ${id} character set utf8mb4 collate utf8mb4_bin`,
  ]);

// no databases: the suites' MySQL-protocol server is MariaDB (see mariadb/testing.ts)
export const testing: EngineTesting = { facts: testFacts };
