import { ToolError } from '@mcp-db-bench/contract';
import { loadModule, parseSync } from 'libpg-query';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The built engine: its parser thread runs dist/postgres/parse-worker.js, which plain Node loads.
import { postgres } from '../dist/postgres/index.js';
import type { AnyDb } from '../src/engine.js';
import { summarize } from '../src/postgres/parse.js';
import { KNOWN_SAFE, SAFE_FUNCTIONS } from '../src/postgres/safe-functions.js';
import { DEFAULT_SQL_POLICY, type SqlPolicy } from '../src/sql-guard.js';
import { freshDatabase, liveUrl } from './support/databases.js';

/**
 * PostgreSQL's sql guard denies by default: a function runs only when it is on the list of
 * known-safe built-ins (safe-functions.ts) or the operator allows it. Against the real server,
 * with extensions Debian's postgresql-15 ships installed (tablefunc, xml2, dblink, hstore), the
 * database's own function, operator and domain: what they add is refused, what agents write passes
 * and runs. The server's sql-deny.test.ts attacks through the sql tool itself.
 */

const PG_URL = liveUrl(postgres);
const ADMIN_URL = process.env.PG_ADMIN_URL;

describe('the parse the guard reads', () => {
  beforeAll(() => loadModule());
  const summary = (text: string) => summarize(parseSync(text));

  it('finds calls in every place, and what SQL syntax stands for', () => {
    const s = summary(
      `select extract(year from now()), trim(x), count(*) over (), percentile_cont(0.5) within group (order by a)
       from rows from (generate_series(1, 2)), t tablesample bernoulli (5), "U&x"(1) as u`,
    );
    expect(s.calls.map((c) => (c.schema ? `${c.schema}.${c.name}` : c.name)).sort()).toEqual(
      [
        'U&x',
        'bernoulli',
        'count',
        'generate_series',
        'now',
        'percentile_cont',
        'pg_catalog.btrim',
        'pg_catalog.extract',
      ].sort(),
    );
  });

  it('finds operators (BETWEEN, IN, LIKE and subqueries too), types, x.f and relations', () => {
    const s = summary(
      `select a between 1 and 2, b not in (1), c like 'x', -d, e = any (select 1), f::hstore, date '2024-01-01',
         t.g, (t).h, 1 operator(public.===) 2 from s.t order by 1 using <`,
    );
    expect(s.operators).toEqual(
      expect.arrayContaining([
        { name: '>=', prefix: false },
        { name: '<=', prefix: false },
        { name: '<>', prefix: false },
        { name: '~~', prefix: false },
        { name: '-', prefix: true },
        { name: '=', prefix: false },
        { schema: 'public', name: '===', prefix: false },
        { name: '<', prefix: false },
      ]),
    );
    expect(s.types).toEqual([{ name: 'hstore' }, { name: 'date' }]);
    expect(s.fields.sort()).toEqual(['g', 'h']);
    expect(s.relations).toEqual([{ schema: 's', name: 't' }]);
  });
});

describe.runIf(PG_URL)('the list of known-safe functions, against PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client(PG_URL);
    await client.connect();
  });
  afterAll(() => client?.end());

  it("names only PostgreSQL's own functions, each one PUBLIC may run; the volatile ones are these", async () => {
    const { rows } = await client.query<{ name: string; volatile: boolean; public: boolean }>(
      `select p.proname as name, bool_or(p.provolatile = 'v') as volatile,
         bool_and(has_function_privilege('public', p.oid, 'execute')) as public
       from pg_proc p where p.pronamespace = 'pg_catalog'::regnamespace
         and not exists (select from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
       group by 1`,
    );
    const builtIn = new Map(rows.map((r) => [r.name, r]));
    const listed = [...KNOWN_SAFE];
    expect(listed.filter((n) => !builtIn.has(n))).toEqual([]);
    expect(listed.filter((n) => !builtIn.get(n)?.public)).toEqual([]);
    expect(listed.filter((n) => builtIn.get(n)?.volatile).sort()).toEqual(
      [
        // TABLESAMPLE's methods, called to make the sampler
        'bernoulli',
        'system',
        'clock_timestamp',
        'gen_random_uuid',
        'pg_database_size',
        'pg_indexes_size',
        'pg_is_in_recovery',
        'pg_jit_available',
        'pg_partition_ancestors',
        'pg_partition_tree',
        'pg_relation_size',
        'pg_sleep',
        'pg_sleep_for',
        'pg_sleep_until',
        'pg_table_size',
        'pg_total_relation_size',
        'random',
        'timeofday',
      ].sort(),
    );
    expect(new Set(Object.values(SAFE_FUNCTIONS).flat()).size, 'a name listed twice').toBe(
      Object.values(SAFE_FUNCTIONS).flat().length,
    );
    console.log(`${listed.length} functions listed; ${builtIn.size - listed.length} of pg_catalog's left off`);
  });

  it('leaves off what the attacks of the past used', () => {
    for (const name of [
      'txid_current',
      'pg_current_xact_id',
      'gin_clean_pending_list',
      'brin_summarize_new_values',
      'brin_summarize_range',
      'pg_terminate_backend',
      'pg_cancel_backend',
      'set_config',
      'setseed',
      'query_to_xml',
      'cursor_to_xml',
      'table_to_xml',
      'ts_stat',
      'ts_rewrite',
      'pg_read_file',
      'pg_ls_dir',
      'pg_stat_file',
      'lo_import',
      'lo_export',
      'pg_advisory_lock',
      'pg_advisory_xact_lock',
      'pg_notify',
      'currval',
      'lastval',
      'nextval',
      'setval',
      'pg_reload_conf',
    ])
      expect(KNOWN_SAFE.has(name), name).toBe(false);
  });

  it("PostgreSQL's own operators call only its own functions, none volatile, each one PUBLIC may run", async () => {
    // why an operator is allowed as a class when it and its function are PostgreSQL's own
    const { rows } = await client.query(
      `select o.oprname, p.proname from pg_operator o join pg_proc p on p.oid = o.oprcode
       where o.oprnamespace = 'pg_catalog'::regnamespace
         and (p.pronamespace <> 'pg_catalog'::regnamespace or p.provolatile = 'v'
              or not has_function_privilege('public', p.oid, 'execute'))`,
    );
    expect(rows).toEqual([]);
  });
});

/**
 * What PostgreSQL 16 to 18 read as SQL/JSON syntax (the guard's parser is 18's) and 15 reads as a
 * call of whatever function has the name, here the database's own (each answers 'ran'): the text,
 * the function's name, and its definition.
 */
const SQL_JSON_CALLS: [string, string, string][] = [
  ['select json_scalar(1)', 'json_scalar', 'json_scalar(int)'],
  ["select json_serialize('a')", 'json_serialize', 'json_serialize(text)'],
  ["select json('a'::text)", 'json', 'json(text)'],
  ["select json_value('a', 'b')", 'json_value', 'json_value(text, text)'],
  ["select json_query('a', 'b')", 'json_query', 'json_query(text, text)'],
  ["select json_exists('a', 'b')", 'json_exists', 'json_exists(text, text)'],
  ['select json_array(1)', 'json_array', 'json_array(int)'],
  // the grammar writes the legacy json_object(...) as pg_catalog.json_object: 15 looks on the search path
  ["select json_object('a', 1)", 'json_object', 'json_object(text, int)'],
  ['select merge_action()', 'merge_action', 'merge_action()'],
];

/** Statements each with what its refusal must say, as the least-privilege role sees the catalog. */
const REFUSED: [string, RegExp][] = [
  [
    "select * from crosstab2('select 1')",
    /^sql: crosstab2 is installed by the extension tablefunc and is not allowed; allow it with --sql-allow-function crosstab2 .* if you trust it$/,
  ],
  ["select * from crosstab3('select 1')", /crosstab3 is installed by the extension tablefunc/],
  ["select * from crosstab4('select 1')", /crosstab4 is installed by the extension tablefunc/],
  ["select * from public.crosstab('select 1') as t(a text)", /crosstab is installed by the extension tablefunc/],
  [
    "select * from connectby('t', 'id', 'parent', '1', 0) as t(a int, b int, c int)",
    /connectby is installed by the extension tablefunc/,
  ],
  [
    "select * from xpath_table('id', 'x', 't', '/a', 'true') as t(id int, a text)",
    /^sql: xpath_table is installed by the extension xml2 and is not allowed; allow it with --sql-allow-function xpath_table/,
  ],
  ["select dblink_exec('dbname=x', 'delete from t')", /dblink_exec is installed by the extension dblink/],
  ["select dblink_connect('c', 'dbname=x')", /dblink_connect is installed by the extension dblink/],
  ["select * from dblink('dbname=x', 'select 1') as t(a int)", /dblink is installed by the extension dblink/],
  [
    'select txid_current()',
    /^sql: txid_current is not on the list of functions known to be safe .*allow it with --sql-allow-function txid_current/,
  ],
  ["select gin_clean_pending_list('t_idx'::regclass)", /gin_clean_pending_list is not on the list/],
  ["select brin_summarize_new_values('t_idx'::regclass)", /brin_summarize_new_values is not on the list/],
  [
    'select pg_terminate_backend(pid) from pg_stat_activity where usename = current_user',
    /pg_terminate_backend is not on the list/,
  ],
  ["select query_to_xml('deallocate all', true, true, '')", /query_to_xml is not on the list/],
  ["select pg_catalog.pg_read_file('/etc/passwd')", /pg_read_file is not on the list/],
  ['select Pg_Catalog."pg_ls_dir"(\'/\')', /pg_ls_dir is not on the list/],
  ['select lenght(1)', /lenght is not on the list .*\(nor is a function of that name known here\)/],
  [
    "select shout('x')",
    /^sql: shout is a function of the schema public \(not one of PostgreSQL's own\) and is not allowed/,
  ],
  ["select public.initcap('x')", /initcap is a function of the schema public/],
  ["select initcap('x')", /initcap is a function of the schema public/],
  ['select tools.upper(1)', /upper is a function of the schema tools/],
  [
    'select 1 === 1',
    /^sql: the operator === calls same_int, a function of the schema public .* --sql-allow-function same_int/,
  ],
  ['select 1 operator(public.===) 1', /the operator === calls same_int/],
  ['select %% h from t', /the operator %% calls hstore_to_array, installed by the extension hstore/],
  [
    "select 'a=>1'::hstore",
    /a value of the type hstore is made by hstore_in, hstore, installed by the extension hstore/,
  ],
  ["select hstore 'a=>1'", /the type hstore is made by/],
  ["select array['a=>1']::hstore[]", /the type hstore is made by/],
  ["select '{a=>1}'::_hstore", /the type _hstore is made by/],
  ['select 2::even_int', /the type even_int is made by is_even, a function of the schema public/],
  ['select 2::odd_int', /the type odd_int is made by same_int/],
  ["select '(2)'::holds_even", /the type holds_even is made by is_even/],
  [
    'select t.hstore from t',
    /x\.hstore calls hstore\(x\) where x is a row without a column hstore: hstore is installed by the extension hstore/,
  ],
  ['select (t).hstore from t', /hstore is installed by the extension hstore/],
  ['select * from t tablesample system_rows(1)', /system_rows is not on the list/],
  // SQL/JSON syntax to the guard's parser (PostgreSQL 18's), a call of the database's function on PostgreSQL 15
  ...SQL_JSON_CALLS.map(([text, name]): [string, RegExp] => [
    text,
    new RegExp(`${name} is a function of the schema public`),
  ]),
  ['select * from pg_authid', /pg_authid is not allowed: PostgreSQL keeps it from PUBLIC/],
  ['select * from pg_hba_file_rules', /pg_hba_file_rules is not allowed: PostgreSQL keeps it from PUBLIC/],
];

/** What agents write: each passes the guard and runs (read-only) on the same database. */
const PASSES = [
  "select date_trunc('month', created), extract(year from created), count(*), sum(n), avg(n), min(n), max(n) from t group by 1, 2 order by 1",
  "select coalesce(name, '-'), nullif(n, 0), greatest(n, 1), least(n, 1), case when n > 1 then 'big' else 'small' end from t",
  'select percentile_cont(0.5) within group (order by n), percentile_disc(0.9) within group (order by n), mode() within group (order by name) from t',
  "select string_agg(name, ', ' order by name), array_agg(id), json_agg(t), jsonb_agg(j), bool_and(n > 0), stddev(n), variance(n) from t",
  'select id, row_number() over w, rank() over w, lag(n) over w, lead(n) over w, sum(n) over (order by id rows between 1 preceding and current row) from t window w as (order by n)',
  "select lower(name), upper(name), trim(name), btrim(name, 'x'), substr(name, 1, 2), substring(name from 1 for 2), length(name), position('a' in name), replace(name, 'a', 'b'), split_part(name, '-', 1), left(name, 1), concat(name, 'x'), name || '!' from t",
  'select round(n, 1), abs(n), ceil(n), floor(n), trunc(n), power(n, 2), sqrt(abs(n)), mod(id, 2), random() >= 0, width_bucket(n, 0, 10, 5) from t',
  "select now(), current_date, current_timestamp, localtimestamp, age(created), created at time zone 'UTC', created + interval '1 day', date '2024-01-01', to_char(created, 'YYYY-MM'), make_date(2024, 1, 1), date_part('dow', created) from t",
  "select j -> 'a', j ->> 'a', j #> '{a}', j ? 'a', j @> '{\"a\": 1}', jsonb_build_object('k', id), jsonb_typeof(j), jsonb_array_length('[1]'), j - 'a', to_jsonb(name) from t",
  "select h -> 'a', h ? 'a', h @> h, h = h from t",
  "select x from t, generate_series(1, 3) x, unnest(array[1, 2]) u, jsonb_each(t.j) e, regexp_split_to_table('a b', ' ') r",
  "select * from t tablesample bernoulli (50) where name like 'a%' or name ilike 'b%' or name similar to 'c%' or name ~ '^d' and id between 1 and 9 and id in (1, 2) and name is distinct from 'z'",
  "select cast(n as int), n::text, id::bigint, '1.5'::numeric(10, 2), array[1, 2] @> array[1], 'ok'::mood, '[1,3)'::int4range @> 2, 2::plain_int from t",
  'with a as (select * from t) select exists (select 1 from a), (select count(*) from a), id = any (array[1]) from t where id in (select id from a)',
  "select c.relname, format_type(a.atttypid, a.atttypmod), pg_get_indexdef(i.indexrelid), obj_description(c.oid), pg_size_pretty(pg_total_relation_size(c.oid)), current_schema(), current_user, version() from pg_class c join pg_attribute a on a.attrelid = c.oid left join pg_index i on i.indrelid = c.oid where c.relname = 't'",
  "select table_name, column_name, data_type from information_schema.columns where table_name = 't'",
  'select t.name, t.n, (t).id from t',
  "select md5(name), encode(sha256(name::bytea), 'hex'), gen_random_uuid() is not null, to_tsvector('english', name) @@ to_tsquery('a') from t",
  "select pg_sleep(0), current_setting('TimeZone'), pg_backend_pid() > 0",
  "select date_trunc('week', created)::date, count(distinct name), round(avg(n)::numeric, 2), coalesce(sum(n), 0), grouping(name) from t group by rollup (1, name) having count(*) > 0",
  "select name, e.k, o.i from t left join lateral jsonb_object_keys(t.j) as e(k) on true, unnest(array['x', 'y']) with ordinality as o(v, i) where name ilike any (array['a%', 'b%'])",
  "select extract(epoch from created)::bigint, created::date, cast(created as date) - 1, now() - interval '7 days' < created, d::date from t, generate_series(date '2024-01-01', date '2024-01-03', interval '1 day') d",
  "select regexp_replace(name, '[0-9]+', '#'), array_length(string_to_array(name, '-'), 1), to_char(n, 'FM999.00'), to_number('12.5', '99.9'), md5(name) <> '' from t group by cube (name, n)",
  // qualified, the built-in is meant, whatever the database defines of that name
  "select pg_catalog.initcap('x')",
  // a schema off the search path is reached only when written
  "select upper('x')",
];

describe.runIf(PG_URL && ADMIN_URL)('deny by default, as the least-privilege role', () => {
  let url = '';
  let db: AnyDb;
  let close: () => Promise<void>;
  let reader: pg.Client;
  beforeAll(async () => {
    await loadModule();
    url = await freshDatabase(postgres, PG_URL!, 'bench_pg_deny');
    const adminUrl = new URL(ADMIN_URL!);
    adminUrl.pathname = new URL(url).pathname;
    const admin = new pg.Client(adminUrl.toString());
    await admin.connect();
    try {
      for (const extension of ['tablefunc', 'xml2', 'dblink', 'hstore'])
        await admin.query(`create extension ${extension}`);
    } finally {
      await admin.end();
    }
    const owner = new pg.Client(url);
    await owner.connect();
    await owner.query(`
      create table t (id int primary key, name text, n numeric, created timestamptz default now(), j jsonb, h hstore, parent int);
      insert into t values (1, 'a-1', 1.5, now(), '{"a": 1}', 'a=>1', null), (2, 'b-2', 2.5, now(), '{"b": 2}', 'b=>2', 1);
      create index t_idx on t using gin (j);
      create function shout(text) returns text language sql immutable as $$ select upper($1) $$;
      create function initcap(int) returns int language sql immutable as $$ select $1 $$;
      create schema tools;
      create function tools.upper(int) returns int language sql immutable as $$ select $1 $$;
      create function same_int(int, int) returns boolean language sql as 'select $1 = $2';
      create operator === (leftarg = int, rightarg = int, function = same_int);
      create function is_even(int) returns boolean language sql immutable as 'select $1 % 2 = 0';
      create domain even_int as int check (is_even(value));
      create domain plain_int as int check (value > 0);
      create domain odd_int as int check (not (value % 2 === 0));
      create type holds_even as (v even_int);
      create type mood as enum ('sad', 'ok');
      ${SQL_JSON_CALLS.map(([, , f]) => `create function ${f} returns text language sql as $$ select 'ran' $$;`).join('\n')}`);
    await owner.end();
    ({ db, close } = await postgres.connect(url, { poolSize: 2 }));
    reader = new pg.Client(url);
    await reader.connect();
  }, 60_000);
  afterAll(async () => {
    await reader?.end();
    await close?.();
  });

  /** Runs a statement as the sql tool would: read-only, rolled back. */
  const runs = async (text: string) => {
    await reader.query('begin read only');
    try {
      await reader.query(`select * from (${text}) as q limit 5`);
    } finally {
      await reader.query('rollback');
    }
  };

  const refusal = async (text: string, policy: SqlPolicy = DEFAULT_SQL_POLICY) => {
    try {
      await postgres.sqlGuard!(db, text, policy);
      return undefined;
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      expect(error.code).toBe('invalid_argument');
      return error.message;
    }
  };

  it(`refuses what extensions, the database and unlisted built-ins add (${REFUSED.length} statements), saying how to allow it`, async () => {
    const wrong: string[] = [];
    for (const [text, why] of REFUSED) {
      const message = await refusal(text);
      if (!message || !why.test(message)) wrong.push(`${text}\n  ${message ?? 'passed'}`);
    }
    expect(wrong).toEqual([]);
  });

  it("(control) on PostgreSQL before 16, the SQL/JSON spellings call the database's functions", async () => {
    const version = Number((await reader.query('show server_version_num')).rows[0].server_version_num);
    const ran = [];
    for (const [text] of SQL_JSON_CALLS)
      ran.push(
        await reader.query(`${text} as x`).then(
          (r) => r.rows[0].x,
          () => 'not a call',
        ),
      );
    expect(ran.every((x) => x === 'ran')).toBe(version < 160000);
  });

  it(`passes what agents write (${PASSES.length} statements), and each runs`, async () => {
    const wrong: string[] = [];
    for (const text of PASSES) {
      const message = await refusal(text);
      if (message) wrong.push(`${text}\n  ${message}`);
      else await runs(text).catch((error: Error) => wrong.push(`${text}\n  ran: ${error.message}`));
    }
    expect(wrong).toEqual([]);
  });

  it('passes what the operator allows, as written, without regard to case', async () => {
    const allow = (...names: string[]) => ({ allowFunctions: new Set(names) });
    expect(await refusal("select shout('x')", allow('shout'))).toBeUndefined();
    expect(await refusal("select SHOUT('x')", allow('shout'))).toBeUndefined();
    expect(await refusal("select * from crosstab2('select 1')", allow('crosstab2'))).toBeUndefined();
    expect(await refusal('select txid_current()', allow('txid_current'))).toBeUndefined();
    expect(await refusal('select 1 === 1', allow('same_int'))).toBeUndefined();
    expect(await refusal("select 'a=>1'::hstore", allow('hstore_in'))).toMatch(/made by hstore,/);
    expect(await refusal("select 'a=>1'::hstore", allow('hstore_in', 'hstore'))).toBeUndefined();
    // once a cast to hstore is allowed, hstore's operators on PostgreSQL's own names can be picked: they need allowing too
    expect(await refusal("select '{\"a\": 1}'::jsonb ? 'a'", allow('hstore_in', 'hstore'))).toMatch(
      /the operator \? calls exist, .*--sql-allow-function exist/,
    );
    // and the list and policy of one call do not leak into the next's
    expect(await refusal("select shout('x')")).toMatch(/shout/);
  });
});
