import { ToolError } from '@mcp-db-bench/contract';
import { type Kysely, sql } from 'kysely';
import { loadModule, parseSync } from 'libpg-query';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The built engine: its parser thread runs dist/postgres/parse-worker.js, which plain Node loads.
import { postgres } from '../dist/postgres/index.js';
import type { AnyDb } from '../src/engine.js';
import { mariadb } from '../src/mariadb/index.js';
import { lex } from '../src/mysql/sql-guard.js';
import { DEFAULT_SQL_POLICY, type SqlPolicy, type Token } from '../src/sql-guard.js';
import { freshDatabase, liveUrl } from './support/databases.js';
import { type Case, MARIADB, numbers, POSTGRES, statements } from './support/statements.js';

/**
 * The sql tool's guards read a statement as the real server does. Thousands of seeded statements
 * (support/statements.ts) go through the guard and through the server; each carries markers, code
 * the server shows it ran (a user variable it set, a function it called), written as code and
 * inside strings and comments. A case fails when the guard passes a statement whose marker ran,
 * or when the guard's reading (which markers are code) differs from what the server ran.
 */

const CASES = Number(process.env.GUARD_DIFF_CASES ?? 3000);
const SEED = Number(process.env.GUARD_DIFF_SEED ?? 46);

interface Tally {
  cases: number;
  guardPassed: number;
  serverRan: number;
  /** cases where the guard's reading and the server's differ, first few kept */
  disagreements: { text: string; guard: string; server: string }[];
  count: number;
  /** of those, the statements the guard passed although the server ran a marker */
  unsafe: number;
}
const tally = (): Tally => ({ cases: 0, guardPassed: 0, serverRan: 0, disagreements: [], count: 0, unsafe: 0 });
const disagree = (t: Tally, text: string, guard: unknown, server: unknown) => {
  t.count++;
  if (guard === 'passed') t.unsafe++;
  if (t.disagreements.length < 12)
    t.disagreements.push({ text: shown(text), guard: JSON.stringify(guard), server: JSON.stringify(server) });
};
/** JSON with every character outside printable ASCII escaped: the bytes that matter here are invisible. */
const shown = (text: string) =>
  JSON.stringify(text).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const passes = async (guard: () => unknown) => {
  try {
    await guard();
    return true;
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return false;
  }
};
const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const report = (name: string, t: Tally, ms: number) =>
  console.log(
    `${name}: ${t.cases} cases in ${ms.toFixed(0)} ms; guard passed ${t.guardPassed}, server ran ${t.serverRan}; ` +
      `${t.count} disagreements (${t.unsafe} passed by the guard)${t.count ? `, e.g.\n${t.disagreements.map((d) => `  ${d.text}\n    guard ${d.guard}, server ${d.server}`).join('\n')}` : ''}`,
  );

/**
 * MariaDB: the markers the guard's tokens show as code. `@m<k> :=` and `into @m<k>` set a variable;
 * last_insert_id(k) keeps k.
 */
function mariadbReading(tokens: Token[]): { vars: number[]; lastId?: number } {
  const code = tokens.filter((t) => t.kind !== 'comment');
  const vars: number[] = [];
  let lastId: number | undefined;
  for (const [i, t] of code.entries()) {
    const name = code[i + 1];
    if (t.kind === 'symbol' && t.value === '@' && name && /^m\d+$/.test(name.value)) {
      if (code[i + 2]?.value === ':' && code[i + 3]?.value === '=') vars.push(Number(name.value.slice(1)));
      else if (code[i - 1]?.kind === 'word' && code[i - 1]?.value.toLowerCase() === 'into')
        vars.push(Number(name.value.slice(1)));
    }
    if ((t.kind === 'word' || t.kind === 'identifier') && t.value.toLowerCase() === 'last_insert_id')
      if (code[i + 1]?.value === '(' && /^\d+$/.test(code[i + 2]?.value ?? '')) lastId = Number(code[i + 2]!.value);
  }
  return { vars: vars.sort((a, b) => a - b), lastId };
}

/**
 * Gives each marker's variable a value no statement assigns, so an assignment shows even when it
 * assigns NULL (`@m1 := 1 / ''` divides by zero): `assigned` tells which changed.
 */
const UNSET = "'unset'";
const unset = (markers: readonly number[]) => `set ${markers.map((k) => `@m${k} = ${UNSET}`).join(', ')}`;
// compared as text: 'unset' = 0 as numbers
const assigned = (markers: readonly number[]) => markers.map((k) => `not (cast(@m${k} as char) <=> ${UNSET}) as m${k}`);

const MYSQL_URL = liveUrl(mariadb);

describe.runIf(MYSQL_URL)('MariaDB: the guard reads a statement as the server does', () => {
  let db: AnyDb;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await mariadb.connect(MYSQL_URL!, { poolSize: 1 }));
  });
  afterAll(() => close?.());

  const differential = async (name: string, setup: string | undefined, seed: number) => {
    const t = tally();
    const started = performance.now();
    await db.connection().execute(async (conn) => {
      if (setup) await sql.raw(setup).execute(conn);
      for (const c of statements(MARIADB, seed, CASES)) await mariadbCase(conn, c, t);
    });
    report(name, t, performance.now() - started);
    return t;
  };

  const mariadbCase = async (conn: Kysely<unknown>, { text, markers }: Case, t: Tally) => {
    t.cases++;
    const guardPassed = await passes(() => mariadb.sqlGuard!(db, text, DEFAULT_SQL_POLICY));
    if (guardPassed) t.guardPassed++;
    let reading: ReturnType<typeof mariadbReading> | undefined;
    try {
      reading = mariadbReading(lex(text));
    } catch {} // the guard found the text unreadable (and refused it)
    if (markers.length) await sql.raw(unset(markers)).execute(conn);
    let ran = true;
    try {
      await sql.raw(text).execute(conn);
    } catch {
      ran = false; // a syntax error: nothing ran
    }
    // A statement the server refused ran nothing: its parse or name resolution failed before any row.
    if (!ran) return;
    t.serverRan++;
    const { rows } = await sql
      .raw<Record<string, unknown>>(`select ${[...assigned(markers), 'last_insert_id() as lid'].join(', ')}`)
      .execute(conn);
    const row = rows[0]!;
    const vars = markers.filter((k) => Number(row[`m${k}`]) === 1);
    const lid = Number(row.lid);
    const lastId = markers.includes(lid) ? lid : undefined;
    const server = { vars, lastId };
    if (guardPassed && (vars.length > 0 || lastId !== undefined)) disagree(t, text, 'passed', server);
    else if (reading && (!same(reading.vars, vars) || reading.lastId !== lastId)) disagree(t, text, reading, server);
  };

  /**
   * Where a number ends, read by the result: `select <tokens>` names its one column after the
   * number as written, or after the word the guard reads as an alias (the server may also find
   * that word a keyword: a syntax error), and a name that begins with digits is an unknown column.
   * Undefined where the tokens are some other shape.
   */
  const columnsOf = (text: string, tokens: Token[] | undefined): ((server: unknown) => boolean) | undefined => {
    if (!tokens || tokens.some((t) => t.kind === 'comment')) return undefined;
    const rest = tokens.slice(1);
    const into = rest.findIndex((t) => t.kind === 'word' && t.value.toLowerCase() === 'into');
    const item = into === -1 ? rest : rest.slice(0, into);
    const [first, second] = item;
    if (item.length === 1 && first!.kind === 'number')
      return (server) => into !== -1 || JSON.stringify(server) === JSON.stringify([text.slice(7, first!.end)]);
    if (item.length === 2 && first!.kind === 'number' && second!.kind === 'word')
      return (server) => server === 1064 || into !== -1 || JSON.stringify(server) === JSON.stringify([second!.value]);
    // (with INTO after it the statement may fail to parse first)
    if (item.length === 1 && into === -1 && first!.kind === 'identifier' && /^[0-9]/.test(first!.value))
      return (server) => server === 1054;
    return undefined;
  };

  /** of the numbers leg: cases whose columns were predicted, and whose marker the server could have set */
  const checked = { columns: 0, markers: 0 };

  const numbersCase = async (conn: Kysely<unknown>, { text, markers }: Case, t: Tally) => {
    t.cases++;
    if (await passes(() => mariadb.sqlGuard!(db, text, DEFAULT_SQL_POLICY))) t.guardPassed++;
    let tokens: Token[] | undefined;
    try {
      tokens = lex(text);
    } catch {} // refused as unreadable (a number whose exponent has no digits)
    if (markers.length) await sql.raw(unset(markers)).execute(conn);
    let server: unknown;
    try {
      const { rows } = await sql.raw<Record<string, unknown>>(text).execute(conn);
      server = rows[0] ? Object.keys(rows[0]) : [];
      t.serverRan++;
    } catch (error) {
      server = (error as { errno?: number }).errno;
    }
    const expected = columnsOf(text, tokens);
    if (expected) checked.columns++;
    if (tokens === undefined && typeof server !== 'number') disagree(t, text, 'unreadable', server);
    else if (expected && !expected(server))
      disagree(
        t,
        text,
        tokens?.map((x) => `${x.kind} ${x.text}`),
        server,
      );
    if (!markers.length || typeof server === 'number') return;
    checked.markers++;
    const { rows } = await sql.raw<Record<string, unknown>>(`select ${assigned(markers).join(', ')}`).execute(conn);
    const vars = markers.filter((k) => Number(rows[0]![`m${k}`]) === 1);
    const reading = tokens ? mariadbReading(tokens).vars : undefined;
    if (reading && !same(reading, vars)) disagree(t, text, reading, vars);
  };

  it(`${CASES} numbers touching keywords, names, dots and signs: where each ends`, async () => {
    const t = tally();
    const started = performance.now();
    await db.connection().execute(async (conn) => {
      for (const c of numbers(SEED + 2, CASES)) await numbersCase(conn, c, t);
    });
    report('MariaDB numbers', t, performance.now() - started);
    console.log(
      `  columns predicted in ${checked.columns} cases, a variable the server could set in ${checked.markers}`,
    );
    expect(t.serverRan).toBeGreaterThan(CASES / 20);
    expect(checked.columns).toBeGreaterThan(CASES / 10);
    expect(t.disagreements).toEqual([]);
  });

  it(`${CASES} statements in the server's own session (sql_mode as the engine sets it)`, async () => {
    const t = await differential('MariaDB', undefined, SEED);
    expect(t.serverRan).toBeGreaterThan(CASES / 20);
    expect(t.disagreements).toEqual([]);
  });

  it(`${CASES} statements under ANSI_QUOTES (double quotes name columns)`, async () => {
    const t = await differential(
      'MariaDB ANSI_QUOTES',
      "set session sql_mode = concat(@@sql_mode, ',ANSI_QUOTES')",
      SEED + 1,
    );
    expect(t.serverRan).toBeGreaterThan(CASES / 20);
    expect(t.disagreements).toEqual([]);
  });
});

/** PostgreSQL: the mark(k) calls in libpg-query's tree of the statement, the parser the guard runs. */
function postgresReading(text: string): number[] | undefined {
  let tree: unknown;
  try {
    tree = parseSync(text);
  } catch {
    return undefined;
  }
  const found: number[] = [];
  // arrays too: Object.values of an array is its items
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const call = (node as { FuncCall?: { funcname?: { String?: { sval?: string } }[]; args?: unknown[] } }).FuncCall;
    const name = call?.funcname?.at(-1)?.String?.sval;
    const arg = (call?.args?.[0] as { A_Const?: { ival?: { ival?: number } } } | undefined)?.A_Const?.ival?.ival;
    if (name === 'mark' && arg !== undefined) found.push(arg);
    for (const value of Object.values(node)) walk(value);
  };
  walk(tree);
  return found.sort((a, b) => a - b);
}

const PG_URL = liveUrl(postgres);
/** mark() is the test database's own function: allowed, as an operator would allow theirs. */
const MARK: SqlPolicy = { allowFunctions: new Set(['mark']) };

describe.runIf(PG_URL)('PostgreSQL: the guard reads a statement as the server does', () => {
  let url = '';
  beforeAll(async () => {
    await loadModule();
    url = await freshDatabase(postgres, PG_URL!, 'bench_guard_differential');
    const client = new pg.Client(url);
    await client.connect();
    // set_config(..., false): the mark stays on the session, read by the next statement.
    await client.query(`create function mark(k int) returns int language plpgsql volatile as $$
      begin perform set_config('guard.m' || k, 'y', false); return k; end $$`);
    await client.end();
  });

  /** Runs the cases as the sql tool does: `select * from (...)` with a parameter (the extended protocol). */
  const differential = async (name: string, client: pg.ClientBase, db: AnyDb, seed: number) => {
    const t = tally();
    const started = performance.now();
    for (const { text, markers } of statements(POSTGRES, seed, CASES)) {
      t.cases++;
      const guardPassed = await passes(() => postgres.sqlGuard!(db, text, MARK));
      if (guardPassed) t.guardPassed++;
      const reading = postgresReading(text);
      let ran = true;
      try {
        await client.query(`select * from (${text}) as q limit $1`, [1000]);
      } catch {
        ran = false;
      }
      if (!ran) continue;
      t.serverRan++;
      const columns = markers.map((k) => `current_setting('guard.m${k}', true) is not null as m${k}`);
      const { rows } = await client.query(`select ${['1 as one', ...columns].join(', ')}`);
      const server = markers.filter((k) => rows[0][`m${k}`] === true);
      // mark() is allowed: the guard's reading (the parse its names come from) must be the server's.
      if (reading && !same(reading, server)) disagree(t, text, reading, server);
    }
    report(name, t, performance.now() - started);
    return t;
  };

  it(`${CASES} statements with standard_conforming_strings on`, async () => {
    const client = new pg.Client({ connectionString: url, options: '-c standard_conforming_strings=on' });
    await client.connect();
    const { db, close } = await postgres.connect(url, { poolSize: 1 });
    try {
      const t = await differential('PostgreSQL', client, db, SEED);
      expect(t.serverRan).toBeGreaterThan(CASES / 20);
      expect(t.disagreements).toEqual([]);
    } finally {
      await client.end();
      await close();
    }
  });

  it(`${CASES} statements on a database whose default is standard_conforming_strings off, on the engine's own session`, async () => {
    const owner = new pg.Client(url);
    await owner.connect();
    await owner.query(`alter database ${new URL(url).pathname.slice(1)} set standard_conforming_strings = off`);
    await owner.end();
    const { db, driver, close } = await postgres.connect(url, { poolSize: 2 });
    try {
      const client = await (driver as pg.Pool).connect();
      try {
        const t = await differential('PostgreSQL, database default off', client, db, SEED + 1);
        expect(t.serverRan).toBeGreaterThan(CASES / 20);
        expect(t.disagreements).toEqual([]);
      } finally {
        client.release();
      }
    } finally {
      await close();
    }
  });
});
