import { ToolError } from '@mcp-db-bench/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyDb } from '../src/engine.js';
import { mariadb } from '../src/mariadb/index.js';
import { ALLOWED, BUILTINS, NOT_CALLS, REFUSED } from '../src/mysql/functions.js';
import { sqlGuard } from '../src/mysql/sql-guard.js';
import { freshDatabase, liveUrl } from './support/databases.js';

/**
 * The guard's list of built-ins (mysql/functions.ts) against MariaDB itself: with a stored
 * function of the same name in the database, a call the guard lets through must reach the
 * built-in, never the stored function. The function takes five arguments and answers 424242, so
 * a call that reaches it shows either that number or MariaDB's "Incorrect number of arguments for
 * FUNCTION db.name" (1318).
 */

const MARK = 424242;
const passes = (text: string, allow: readonly string[] = []) => {
  try {
    sqlGuard(undefined as unknown as AnyDb, text, { allowFunctions: new Set(allow) });
    return true;
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return false;
  }
};

describe('the list of built-ins', () => {
  it('is the list it says it is', () => {
    const names = Object.values(BUILTINS).flat();
    expect(new Set(names).size, 'no name twice').toBe(names.length);
    // the number docs/safety.md gives
    expect(ALLOWED.size).toBe(348);
    for (const name of ALLOWED) expect(REFUSED[name], name).toBeUndefined();
    for (const name of [...ALLOWED, ...NOT_CALLS]) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('passes what agents write, and refuses what they may not call', () => {
    for (const ok of [
      "select date_format(created_at, '%Y-%m') as m, year(d), month(d), count(*), sum(total), avg(total) from orders group by 1",
      "select coalesce(a, b), ifnull(a, 0), concat(a, b), group_concat(x order by x separator ',') from t",
      "select round(x, 2), lower(s), upper(s), substring(s, 1, 3), json_extract(j, '$.a'), now(), curdate(), datediff(a, b)",
      'select count (distinct x), sum( x ) from t where x in (1, 2) and not exists (select 1 from u where u.id = t.id)',
      'with recursive n (i) as (select 1 union all select i + 1 from n where i < 5) select * from n',
      'select row_number() over (partition by a order by b), lag(x) over w from t window w as (order by b)',
      "select cast(x as decimal(10, 2)), convert(s using utf8mb4), convert(x, char(3)), extract(year from d), trim(both 'x' from s)",
      "select * from json_table('[1, 2]', '$[*]' columns (i for ordinality, v int path '$')) as jt",
      "select match (a) against ('x' in boolean mode), x between 1 and 3, interval(x, 1, 2), if(x, 1, 2) from t",
      "select date_add(d, interval 1 day), timestampdiff(second, a, b), st_distance(st_geomfromtext('point(0 0)'), st_geomfromtext('point(1 1)'))",
      'select percentile_cont(0.5) within group (order by x) over () from t',
      'select sleep(0), connection_id(), database(), version()',
    ])
      expect(passes(ok), ok).toBe(true);
    for (const refused of [
      "select load_file('/etc/passwd')",
      "select sys_exec('id')",
      'select my_function(1)',
      'select test.concat(1)',
      'select `concat`(1)',
      'select count/**/(1)',
      "select get_lock('x', 0)",
      'select nextval(s)',
      'select found_rows()',
      'select benchmark(1000000, md5(1))',
    ])
      expect(passes(refused), refused).toBe(false);
  });

  it('lets the operator allow a function by name, plain, quoted or qualified', () => {
    expect(passes('select take_lock()')).toBe(false);
    expect(passes('select take_lock()', ['take_lock'])).toBe(true);
    expect(passes('select `take_lock`()', ['take_lock'])).toBe(true);
    expect(passes('select shop.take_lock()', ['take_lock'])).toBe(true);
    expect(passes('select shop.take_lock()', ['shop.take_lock'])).toBe(true);
    expect(passes('select other.take_lock()', ['shop.take_lock'])).toBe(false);
    expect(passes('select TAKE_LOCK()', ['Take_Lock'])).toBe(true);
  });
});

const MYSQL_URL = liveUrl(mariadb);

describe.runIf(MYSQL_URL)('MariaDB: no call the guard passes reaches a stored function of that name', () => {
  let db: AnyDb;
  let close: () => Promise<void>;
  let schema = '';
  beforeAll(async () => {
    const url = await freshDatabase(mariadb, MYSQL_URL!, 'bench_guard_functions');
    schema = new URL(url).pathname.slice(1);
    ({ db, close } = await mariadb.connect(url, { poolSize: 1, statementTimeoutMs: 2000 }));
  });
  afterAll(() => close?.());

  /** Every spelling of a call of `name`: the guard must refuse it or the built-in must answer. */
  const spellings = (name: string) =>
    ['', '1', '1, 2', "'2024-01-02'"].flatMap((args) => [
      `select ${name}(${args})`,
      `select ${name} (${args})`,
      `select ${name.toUpperCase()}\t\n(${args})`,
      `select ${name}/* c */(${args})`,
      `select \`${name}\`(${args})`,
      `select ${schema}.${name}(${args})`,
    ]);

  it(`${ALLOWED.size} built-ins and ${NOT_CALLS.size} keywords, each shadowed by a stored function`, async () => {
    let passed = 0;
    let refused = 0;
    const reached: string[] = [];
    await db.connection().execute(async (conn) => {
      for (const name of [...ALLOWED, ...NOT_CALLS]) {
        await sql
          .raw(`create function \`${name}\`(a int, b int, c int, d int, e int) returns int return ${MARK}`)
          .execute(conn);
        for (const text of spellings(name)) {
          if (!passes(text)) {
            refused++;
            continue;
          }
          passed++;
          try {
            const { rows } = await sql.raw<Record<string, unknown>>(text).execute(conn);
            if (Object.values(rows[0] ?? {}).some((v) => Number(v) === MARK)) reached.push(text);
          } catch (error) {
            const { errno, message } = error as { errno?: number; message: string };
            if (errno === 1318 || message.includes(`FUNCTION ${schema}.`)) reached.push(`${text}: ${message}`);
          }
        }
        await sql.raw(`drop function \`${name}\``).execute(conn);
      }
    });
    console.log(`${passed} spellings passed the guard and reached no stored function; ${refused} refused`);
    expect(reached).toEqual([]);
    expect(passed).toBeGreaterThan(ALLOWED.size * 8);
    expect(refused).toBeGreaterThan(ALLOWED.size * 8);
  }, 300_000);
});
