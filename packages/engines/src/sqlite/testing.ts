import { CompiledQuery } from 'kysely';
import type { AnyDb } from '../engine.js';
import { temporaryPath } from '../testing/databases.js';
import type { EngineTesting, PlanReading, TestFacts } from '../testing/facts.js';
import { paritySchema } from './parity-schema.js';

/** Counts to `n` in a recursive query: SQLite's slow statement, since it has no sleep. */
const counting = (n: number) =>
  `with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select count(*) as n from c`;

/**
 * What the shared test suites write in SQLite's SQL. No process list: caller-written SQL runs
 * in a child process of the server; and one connection, so nothing to hold or wait for.
 */
export const testFacts: TestFacts = {
  shopTypes: {
    int: 'INTEGER',
    bigint: 'BIGINT',
    text100: 'VARCHAR(100)',
    text20: 'VARCHAR(20)',
    bool: 'BOOLEAN',
    money: 'DECIMAL(12,2)',
    ts: 'TIMESTAMP',
  },
  notesTable:
    'create table notes (id integer primary key autoincrement, customer_id integer, ' +
    'body varchar(100) not null, n integer not null default 0)',
  paritySchema,
  largeAnswer: { statement: (mib) => `select printf('%.*c', ${mib} * 1024 * 1024, 'x') as v` },
  slow: {
    statement: counting(300_000_000),
    // a read on a worker thread cannot be interrupted (see worker-pool.ts): half a second or so of counting
    view: `create view slow_view as ${counting(500_000)}`,
  },
  // an index's entries end with the rowid, which an integer primary key is
  plan: { read: readPlan, keyEndsIndex: true },
};

/** `explain query plan`: `SCAN t` (of the table or of an index) reads it whole; a temporary B-tree sorts. */
async function readPlan(db: AnyDb, query: CompiledQuery): Promise<PlanReading> {
  const { rows } = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
  );
  const steps = rows.map((r) => r.detail);
  return {
    scans: steps.filter((s) => s.startsWith('SCAN ')).map((s) => s.split(' ')[1]!),
    sorts: steps.filter((s) => s.includes('TEMP B-TREE')).length,
    text: steps.join('\n'),
  };
}

/** An embedded engine: always tested, each database a new file. */
export const testing: EngineTesting = {
  facts: testFacts,
  databases: { fresh: async (_, name) => `sqlite:${temporaryPath(`${name}.db`)}` },
};
