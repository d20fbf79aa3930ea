/**
 * `@mcp-db-bench/engines/testing`: what the test suites need of each engine, kept out of the
 * runtime entry (as kysely keeps its dialects' test setup apart): the SQL the shared suites write
 * in its family (`testFactsOf`) and how they get an empty database of it (`testDatabasesOf`).
 * Each engine's facts live in its folder (`<engine>/testing.ts`); this table has a line each.
 */
import type { Engine } from '../engine.js';
import { testing as mariadb } from '../mariadb/testing.js';
import { testing as mssql } from '../mssql/testing.js';
import { testing as mysql } from '../mysql/testing.js';
import { testing as pglite } from '../pglite/testing.js';
import { testing as postgres } from '../postgres/testing.js';
import { testing as sqlite } from '../sqlite/testing.js';
import type { EngineTesting, TestDatabases, TestFacts } from './facts.js';

/** PostgreSQL's answer meter, which bench/answer-meter.mjs times on its own */
export { RowBytes } from '../postgres/answer-meter.js';
export { recreateOnServer, temporaryPath } from './databases.js';
export type {
  EngineTesting,
  HostProbe,
  PlanFacts,
  PlanReading,
  ShopColumnType,
  TestDatabases,
  TestFacts,
} from './facts.js';

const TESTING = new Map<string, EngineTesting>(Object.entries({ mariadb, mssql, mysql, pglite, postgres, sqlite }));

/** Gives an engine defined outside this package (a test's own) its test facts. */
export function defineTesting(engine: Pick<Engine, 'name'>, testing: EngineTesting): void {
  TESTING.set(engine.name, testing);
}

function testingOf(engine: Pick<Engine, 'name' | 'title'>): EngineTesting {
  const testing = TESTING.get(engine.name);
  if (!testing) throw new Error(`${engine.title} has no test facts: defineTesting() gives an engine its own`);
  return testing;
}

/** What the shared suites write in the engine's SQL. */
export const testFactsOf = (engine: Pick<Engine, 'name' | 'title'>): TestFacts => testingOf(engine).facts;

/** How the suites get an empty database of the engine; undefined: tested through another engine's server. */
export const testDatabasesOf = (engine: Pick<Engine, 'name' | 'title'>): TestDatabases | undefined =>
  testingOf(engine).databases;
