import { f, parseFilterExpression, TOOL_NAMES } from '@mcp-db-bench/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpCallError, type McpClient, type ToolCallResult, type ToolInfo } from '../src/clients/client.js';
import { FakeClock } from '../src/drive/clock.js';
import { nullProbe } from '../src/drive/probe.js';
import { dbhubEngine, dbhubNoDialect, dbhubTools } from '../src/peers/dbhub.js';
import { literal } from '../src/peers/dialects/index.js';
import {
  DIALECTS,
  filterSql,
  PEERS,
  PeerClient,
  type PeerOptions,
  type PeerProfile,
  portableType,
  type RawSink,
} from '../src/peers/index.js';
import { checkTargets } from '../src/runner/check.js';
import { runPlan } from '../src/runner/run-plan.js';
import { WORKLOADS } from '../src/workloads/index.js';
import { type LiveSql, liveEngines, sqlPeer } from './support/live-sql.js';
import { planOf } from './support/plan.js';

const columns = new Set(['customer_id', 'status', 'total']);

/** Values an agent (or a hostile row) may hand a profile; each must come back from the engine unchanged. */
const HOSTILE = [
  "O'Brien",
  'back\\slash',
  "x\\' or 1=1 -- ",
  "\\'",
  "'",
  "''",
  '\\',
  '\\\\',
  'ends with \\',
  "'; select 1; --",
  'ünïcødé ✓ 𝄞 日本語 \u2028',
  'line\nbreak\ttab',
  '%_*?[',
  '$$ dollar $$',
  '"double" `back`',
];

const sqlToolClient = (engine: string, peer: McpClient) =>
  new PeerClient(PEERS['sql-tool']!, peer, { engine, sqlTool: 'sql', sqlArg: 'sql' });
const data = <T>(r: ToolCallResult) => {
  if (r.isError) throw new Error(JSON.stringify(r.data));
  return r.data as T;
};

describe('SQL written by profiles: values as each dialect’s safe literals, identifiers from discovery only', () => {
  it('writes strings per dialect: SQLite doubles quotes, MySQL backslashes too, PostgreSQL an escape string', () => {
    const value = "x\\' or 1=1 -- ";
    expect(literal(DIALECTS.sqlite!, value)).toBe("'x\\'' or 1=1 -- '");
    expect(literal(DIALECTS.mysql!, value)).toBe("'x\\\\'' or 1=1 -- '");
    expect(literal(DIALECTS.mariadb!, value)).toBe("'x\\\\'' or 1=1 -- '");
    expect(literal(DIALECTS.postgres!, value)).toBe("E'x\\\\'' or 1=1 -- '");
    expect(literal(DIALECTS.postgres!, "O'Brien")).toBe("E'O''Brien'");
    for (const d of Object.values(DIALECTS)) {
      expect(literal(d, 42)).toBe('42');
      expect(literal(d, -1.5)).toBe('-1.5');
      expect(literal(d, null)).toBe('null');
    }
  });

  it('writes booleans per dialect: PostgreSQL’s TRUE/FALSE, 1/0 where booleans are integers', () => {
    expect([true, false].map((b) => literal(DIALECTS.postgres!, b))).toEqual(['true', 'false']);
    expect([true, false].map((b) => literal(DIALECTS.mysql!, b))).toEqual(['1', '0']);
    expect([true, false].map((b) => literal(DIALECTS.sqlite!, b))).toEqual(['1', '0']);
  });

  it('refuses what is not a finite number, a string, a boolean or null, and a NUL in every dialect', () => {
    for (const d of Object.values(DIALECTS)) {
      expect(() => literal(d, Number.NaN)).toThrow(/not a finite number/);
      expect(() => literal(d, Number.POSITIVE_INFINITY)).toThrow(/not a finite number/);
      expect(() => literal(d, { a: 1 })).toThrow(/cannot send a object/);
      expect(() => literal(d, 'a\0b')).toThrow(/NUL/);
    }
  });

  /** Our filter text, read by our grammar, as the dialect's SQL. */
  const sqlOf = (text: string, dialect: string) => filterSql(parseFilterExpression(text), columns, DIALECTS[dialect]!);

  it('translates the comparisons workloads send, per dialect', () => {
    expect(sqlOf('customer_id = 42', 'sqlite')).toBe('"customer_id" = 42');
    expect(sqlOf("status = 'it''s' and total >= 10.5", 'mysql')).toBe("`status` = 'it''s' and `total` >= 10.5");
    expect(sqlOf("status = 'a\\b'", 'mysql')).toBe("`status` = 'a\\\\b'");
    // " and " inside a string is part of the value
    expect(sqlOf("status = 'a and b'", 'postgres')).toBe(`"status" = E'a and b'`);
  });

  it('translates the rest of the tree but like: or, not, in, between, is null, bracketing groups', () => {
    const text = "(customer_id in (1, 2) or total between 1 and 9.5) and not status is null and status != 'x'";
    expect(sqlOf(text, 'sqlite')).toBe(
      `("customer_id" in (1, 2) or "total" between 1 and 9.5) and not ("status" is null) and "status" <> 'x'`,
    );
    expect(
      filterSql(
        f.or(f.eq('customer_id', 1), f.and(f.eq('status', 'a'), f.gt('total', 2))),
        columns,
        DIALECTS.postgres!,
      ),
    ).toBe(`"customer_id" = 1 or ("status" = E'a' and "total" > 2)`);
  });

  it('leaves out (undefined) what it cannot translate safely: unknown columns, like', () => {
    expect(sqlOf('nope = 1', 'sqlite')).toBeUndefined();
    expect(sqlOf('customer_id = 1 or nope = 1', 'sqlite')).toBeUndefined();
    expect(sqlOf("status like 'a%'", 'sqlite')).toBeUndefined();
  });

  it('quotes identifiers by doubling their quote character', () => {
    expect(DIALECTS.sqlite!.quote('we"ird')).toBe('"we""ird"');
    expect(DIALECTS.mysql!.quote('we`ird')).toBe('`we``ird`');
  });

  it('maps declared types to portable ones, so workloads pick the same numeric measures', () => {
    expect(
      [
        'INTEGER',
        'bigint',
        'DECIMAL(12,2)',
        'numeric',
        'double precision',
        'VARCHAR(20)',
        'timestamp with time zone',
        'boolean',
      ].map(portableType),
    ).toEqual(['integer', 'integer', 'decimal', 'decimal', 'float', 'text', 'timestamp', 'boolean']);
  });
});

describe.each(liveEngines())('literals and the sql-tool profile on a live $engine', ({ engine, open }) => {
  let db: LiveSql;
  const d = DIALECTS[engine]!;
  beforeAll(async () => {
    db = await open('bench_agent_literals');
    await db.run('create table people (name varchar(200) primary key, active boolean not null, age integer not null)');
    for (const [i, name] of HOSTILE.entries())
      await db.exec('insert into people (name, active, age) values (?, ?, ?)', [name, i % 2 === 0, i]);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('reads every hostile string back unchanged from its literal', async () => {
    for (const value of HOSTILE)
      expect(await db.run(`select ${literal(d, value)} as v`), JSON.stringify(value)).toEqual([{ v: value }]);
  });

  it('compares booleans with its boolean column', async () => {
    const active = await db.run(`select count(*) as n from people where active = ${literal(d, true)}`);
    expect(Number(active[0]!.n)).toBe(Math.ceil(HOSTILE.length / 2));
  });

  it('finds each hostile key through the profile (get and a filter), and only that row', async () => {
    const client = sqlToolClient(engine, sqlPeer(db));
    await client.open();
    expect(
      data<{ tables: { name: string }[] }>(await client.callTool('list_tables', {})).tables.map((t) => t.name),
    ).toContain('people');
    for (const name of HOSTILE) {
      expect(
        data<{ row: unknown }>(await client.callTool('get', { table: 'people', key: name })).row,
        JSON.stringify(name),
      ).toMatchObject({ name });
      const filtered = data<{ rows: { name: string }[] }>(
        await client.callTool('query', { table: 'people', filter: `name = '${name.replaceAll("'", "''")}'` }),
      );
      expect(filtered.rows.map((r) => r.name)).toEqual([name]);
    }
  });

  it.runIf(engine === 'postgres')('reads them back the same with standard_conforming_strings off', async () => {
    await db.run('set standard_conforming_strings = off');
    try {
      for (const value of HOSTILE)
        expect(await db.run(`select ${literal(d, value)} as v`), JSON.stringify(value)).toEqual([{ v: value }]);
    } finally {
      await db.run('set standard_conforming_strings = on');
    }
  });

  it.runIf(engine === 'mysql')(
    'under NO_BACKSLASH_ESCAPES a backslash only doubles: the literal still ends where it should',
    async () => {
      await db.run("set session sql_mode = concat(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
      try {
        for (const value of HOSTILE)
          expect(await db.run(`select ${literal(d, value)} as v`), JSON.stringify(value)).toEqual([
            { v: value.replaceAll('\\', '\\\\') },
          ]);
        // the injection attempt is one odd value: no row matches it, rather than every row
        const client = sqlToolClient(engine, sqlPeer(db));
        const r = data<{ rows: unknown[] }>(
          await client.callTool('query', { table: 'people', filter: "name = 'x\\'' or 1=1 -- '" }),
        );
        expect(r.rows).toEqual([]);
      } finally {
        await db.run("set session sql_mode = replace(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')");
      }
    },
  );

  it('answers a filter our grammar refuses as our server does (invalid_filter), sending nothing', async () => {
    const log: string[] = [];
    const client = sqlToolClient(engine, sqlPeer(db, log));
    await client.callTool('describe_table', { table: 'people' });
    const sent = log.length;
    for (const filter of [
      "name = 'x' or 1 = 1",
      'name = (select 1)',
      "name = 'unterminated",
      { column: 'name', op: '~' },
    ]) {
      const r = await client.callTool(TOOL_NAMES.query, { table: 'people', filter });
      expect(r, JSON.stringify(filter)).toMatchObject({ isError: true, data: { error: { code: 'invalid_filter' } } });
    }
    expect(log.length).toBe(sent);
  });

  it('refuses an aggregate function or a limit that is not ours before anything reaches the peer', async () => {
    const log: string[] = [];
    const client = sqlToolClient(engine, sqlPeer(db, log));
    await client.callTool('describe_table', { table: 'people' });
    const sent = log.length;
    const refusals = [
      {
        tool: 'aggregate',
        args: { table: 'people', aggregates: [{ fn: 'count(*) as n from people; drop table people; --', as: 'n' }] },
      },
      { tool: 'aggregate', args: { table: 'people', aggregates: [{ fn: 'COUNT', as: 'n' }] } },
      {
        tool: 'aggregate',
        args: { table: 'people', aggregates: [{ fn: 'count', as: 'n' }], limit: '1; drop table people' },
      },
      { tool: 'aggregate', args: { table: 'people', aggregates: [{ fn: 'count', as: 'n' }], limit: -1 } },
      { tool: 'query', args: { table: 'people', limit: 1.5 } },
      { tool: 'query', args: { table: 'people', limit: '10 union select 1' } },
      { tool: 'query', args: { table: 'people', limit: Number.NaN } },
    ];
    for (const { tool, args } of refusals) {
      const r = await client.callTool(tool, args);
      expect(r, JSON.stringify(args)).toMatchObject({ isError: true, data: { error: { code: 'invalid_argument' } } });
    }
    expect(log.length).toBe(sent);
    // the functions we have still work, and a limit of 0 is a page of none
    const counted = data<{ rows: { n: unknown }[] }>(
      await client.callTool('aggregate', { table: 'people', aggregates: [{ fn: 'count', as: 'n' }] }),
    );
    expect(Number(counted.rows[0]!.n)).toBe(HOSTILE.length);
    expect(
      data<{ rows: unknown[]; truncated: boolean }>(await client.callTool('query', { table: 'people', limit: 0 })),
    ).toMatchObject({ rows: [], truncated: true });
  });
});

describe('what discovery costs the peer: an agent’s session, not a re-list per describe', () => {
  let db: LiveSql;
  beforeAll(async () => {
    db = await liveEngines()[0]!.open('discovery');
    await db.run('create table customers (id integer primary key, name text)');
    await db.run('create table orders (id integer primary key, customer_id integer references customers(id))');
    await db.run('create table order_items (id integer primary key, order_id integer references orders(id))');
  });
  afterAll(() => db?.close());

  it('lists the tables once a session (list_tables), describes each with its own statements, and a new session pays its own', async () => {
    const log: string[] = [];
    const client = sqlToolClient('sqlite', sqlPeer(db, log));
    const d = DIALECTS.sqlite!;
    const count = (sql: string) => log.filter((s) => s === sql).length;
    await client.open();
    await client.callTool('list_tables', {});
    for (const table of ['customers', 'orders', 'order_items']) {
      const t = data<{ referenced_by: unknown[] }>(await client.callTool('describe_table', { table }));
      expect(t.referenced_by).toBeDefined();
    }
    expect(count(d.tables)).toBe(1);
    expect(count(d.foreignKeys)).toBe(1);
    // columns and row count per table: 1 + 3 × 2 + 1 statements for the whole start
    expect(log).toHaveLength(8);
    // a new session forgets: a describe before any list lists once, then no more
    await client.open();
    await client.callTool('describe_table', { table: 'orders' });
    await client.callTool('describe_table', { table: 'customers' });
    expect(count(d.tables)).toBe(2);
    expect(count(d.foreignKeys)).toBe(2);
    // a table discovery did not report is still refused
    expect(await client.callTool('describe_table', { table: 'nope' })).toMatchObject({
      isError: true,
      data: { error: { code: 'unknown_table' } },
    });
  });
});

describe('a profile that cannot do an intent', () => {
  /** A peer with one `lookup` tool; the profile serves discovery and `get` through it, and says it has no aggregate. */
  const profile: PeerProfile = {
    name: 'lookup-only',
    summary: 'a test peer',
    cannot: { aggregate: 'lookup-only: no aggregate tool' },
    translate: (peer) => ({
      tools: {
        list_tables: async () => ({
          isError: false,
          data: { tables: [{ name: 'customers', kind: 'table', rows: 10, summary: '' }] },
        }),
        describe_table: async () => ({
          isError: false,
          data: {
            name: 'customers',
            kind: 'table',
            rows: 10,
            columns: [],
            primary_key: ['id'],
            foreign_keys: [],
            referenced_by: [],
            indexes: [],
          },
        }),
        get: async (args) => {
          const r = await peer.callTool('lookup', { id: args.key });
          return { isError: false, data: { found: true, row: r.data } };
        },
      },
    }),
  };

  it('lists only the tools it serves, and the runner skips what needs the others with the profile’s reason', async () => {
    const clock = new FakeClock();
    const peerCalls: string[] = [];
    const peer = (): McpClient => ({
      open: async () => ({ era: 'legacy', protocolVersion: 'test' }),
      abandon: () => {},
      reinitialized: 0,
      listTools: async () => [{ name: 'lookup' }],
      async callTool(name, args) {
        peerCalls.push(name);
        await clock.sleep(5);
        return { isError: false, data: { id: args.id } };
      },
      close: async () => {},
    });
    expect((await new PeerClient(profile, peer()).listTools()).map((t) => t.name)).toEqual([
      TOOL_NAMES.listTables,
      TOOL_NAMES.describeTable,
      TOOL_NAMES.get,
    ]);
    const result = await clock.run(
      runPlan(
        planOf({
          targets: [{ label: 'peer', client: () => new PeerClient(profile, peer()), cannot: profile.cannot }],
          indexes: [],
          workloads: [WORKLOADS['point-read']!, WORKLOADS.analytical!],
          agents: [1],
          iterations: 1,
          warmupMs: 0,
          durationMs: 200,
          seed: 1,
        }),
        { clock, probe: nullProbe },
      ),
    );
    expect(result.skipped).toEqual([
      { target: 'peer', workload: 'analytical', reason: 'lookup-only: no aggregate tool' },
    ]);
    expect(result.steps.map((s) => [s.workload, s.errors])).toEqual([['point-read', {}]]);
    expect(result.steps[0]!.calls).toBeGreaterThan(0);
    expect(new Set(peerCalls)).toEqual(new Set(['lookup']));
  });

  it('answers a call for what it cannot do as a tool error naming the reason', async () => {
    const peer: McpClient = {
      open: async () => ({ era: 'legacy', protocolVersion: 't' }),
      abandon: () => {},
      reinitialized: 0,
      listTools: async () => [],
      callTool: async () => ({ isError: false, data: {} }),
      close: async () => {},
    };
    expect(await new PeerClient(profile, peer).callTool(TOOL_NAMES.aggregate, {})).toEqual({
      isError: true,
      data: { error: { code: 'unsupported', message: 'lookup-only: no aggregate tool' } },
    });
  });
});

describe('the check pass: a failing target is a disagreement, never the end of the pass', () => {
  let db: LiveSql;
  beforeAll(async () => {
    db = await liveEngines()[0]!.open('check');
    await db.run('create table items (id integer primary key, label text not null)');
    for (let i = 1; i <= 30; i++) await db.exec('insert into items (id, label) values (?, ?)', [i, `item ${i}`]);
  });
  afterAll(() => db?.close());

  /** The same server, broken as asked: its point reads fail below the tool, or its session cannot start. */
  const broken = (how: 'reads' | 'open'): McpClient => {
    const peer = sqlPeer(db);
    return {
      ...peer,
      open: how === 'open' ? async () => Promise.reject(new McpCallError('network', 'connection refused')) : peer.open,
      callTool: async (name, args) => {
        if (how === 'reads' && / limit 1$/.test(String(args.sql)))
          throw new McpCallError('timeout', 'no answer within 30000 ms');
        return peer.callTool(name, args);
      },
    };
  };
  const target = (label: string, peer: () => McpClient) => ({ label, client: () => sqlToolClient('sqlite', peer()) });
  const check = (targets: ReturnType<typeof target>[]) =>
    checkTargets(targets, [WORKLOADS['point-read']!], 7, 10, () => true);

  it('records a call that throws as that call’s answer, and the others still compare', async () => {
    const checked = await check([
      target('good', () => sqlPeer(db)),
      target('same', () => sqlPeer(db)),
      target('broken', () => broken('reads')),
    ]);
    expect(checked.agreement.map((a) => [a.target, a.calls, a.mismatches])).toEqual([
      ['same', 10, 0],
      ['broken', 10, 10],
    ]);
    expect(checked.agreement[1]!.differences[0]).toMatch(
      /^get \{.*\}: good 1 row \[\d+\], broken failed: no answer within 30000 ms$/,
    );
    expect(checked.tokens.map((t) => t.target)).toEqual(['good', 'same', 'broken']);
  });

  it('a target that cannot start disagrees on every call; a reference that cannot start disagrees with each other target', async () => {
    const later = await check([target('good', () => sqlPeer(db)), target('down', () => broken('open'))]);
    expect(later.agreement).toMatchObject([{ target: 'down', calls: 10, mismatches: 10 }]);
    expect(later.agreement[0]!.differences[0]).toMatch(/down failed: session start: connection refused/);
    expect(later.tokens.map((t) => t.target)).toEqual(['good']);
    expect(later.failures).toEqual([
      expect.stringMatching(/^down: no token cost, failed: session start: connection refused/),
    ]);

    const first = await check([target('down', () => broken('open')), target('good', () => sqlPeer(db))]);
    expect(first.agreement).toMatchObject([{ reference: 'down', target: 'good', calls: 0, mismatches: 1 }]);
    expect(first.agreement[0]!.differences[0]).toMatch(
      /^choosing the calls: down failed: session start: connection refused, good ready$/,
    );
  });

  it('counts initialize’s instructions in the session start, once, beside tools/list', async () => {
    const instructions = 'Use list_tables first. '.repeat(40);
    const checked = await checkTargets(
      [target('plain', () => sqlPeer(db)), target('instructed', () => sqlPeer(db, [], { instructions }))],
      [],
      7,
      10,
      () => true,
    );
    const [plain, instructed] = checked.tokens;
    expect(instructed!.toolsList).toEqual(plain!.toolsList);
    expect(instructed!.sessionStart.bytes - plain!.sessionStart.bytes).toBe(Buffer.byteLength(instructions));
    expect(instructed!.sessionStart.tokens).toBeGreaterThan(plain!.sessionStart.tokens);
    // tools/list is in the session start once: instructions + tools + list_tables's answer, nothing doubled
    const raw: string[] = [];
    const client = sqlToolClient('sqlite', sqlPeer(db, [], { instructions }));
    client.tap((_, text) => raw.push(text));
    await client.open();
    await client.listTools();
    await client.callTool('list_tables', {});
    // (no task tables in this database: the start describes none)
    expect(instructed!.sessionStart.bytes).toBe(raw.reduce((n, t) => n + Buffer.byteLength(t), 0));
  });
});

describe('what the token count reads: the answer as the peer sent it', () => {
  const answer = { rows: [{ id: 1, label: 'one' }] };
  const indented = JSON.stringify(answer, null, 2);
  let reads = 0;
  const peer = (result: () => ToolCallResult): McpClient => ({
    open: async () => ({ era: 'legacy', protocolVersion: 't' }),
    abandon: () => {},
    reinitialized: 0,
    listTools: async () => [{ name: 'lookup' }],
    callTool: async () => result(),
    close: async () => {},
  });
  const textResult = (): ToolCallResult => ({
    isError: false,
    data: answer,
    get content() {
      reads++;
      return [{ type: 'text', text: indented }];
    },
  });
  const tapped = async (client: PeerClient) => {
    const seen: Parameters<RawSink>[] = [];
    client.tap((kind, text) => seen.push([kind, text]));
    await client.callTool('lookup', {});
    return seen;
  };

  it('counts the text block as received (indented stays indented), or the structured content when there is no text', async () => {
    expect(await tapped(new PeerClient(PEERS.ours!, peer(textResult)))).toEqual([['call', indented]]);
    expect(
      await tapped(
        new PeerClient(
          PEERS.ours!,
          peer(() => ({ isError: false, data: answer })),
        ),
      ),
    ).toEqual([['call', JSON.stringify(answer)]]);
  });

  it('reads nothing of it when untapped: the timed calls pay nothing for the count', async () => {
    reads = 0;
    const client = new PeerClient(PEERS.ours!, peer(textResult));
    for (let i = 0; i < 3; i++) expect((await client.callTool('lookup', {})).data).toEqual(answer);
    expect(reads).toBe(0);
  });
});

describe('DBHub: the engine and the tools from its own tool descriptions', () => {
  // the strings DBHub 1.4 writes (dist/index.js, getExecuteSqlMetadata)
  it('reads the engine from one source’s description and from several sources’', () => {
    expect(dbhubEngine('Execute SQL queries on the sqlite database')).toBe('sqlite');
    expect(dbhubEngine("Execute SQL queries on the 'id' postgres database")).toBe('postgres');
    expect(
      dbhubEngine(
        'Production replica. Execute SQL queries on the \'shop eu\' mariadb database [READ-ONLY MODE] (limited to 1000 rows; capped results carry "truncated": true)',
      ),
    ).toBe('mariadb');
    expect(dbhubEngine('Runs a query')).toBeUndefined();
    const tools = (...names: string[]): ToolInfo[] => names.map((name) => ({ name }));
    expect(dbhubTools(tools('search_objects', 'execute_sql'))).toMatchObject({
      sql: { name: 'execute_sql' },
      search: 'search_objects',
    });
    expect(dbhubTools(tools('execute_sql_main', 'search_objects_main', 'execute_sql_other'))).toMatchObject({
      sql: { name: 'execute_sql_main' },
      search: 'search_objects_main',
    });
  });

  it('says plainly that SQL Server is not supported, and asks for the engine only when none was named', () => {
    expect(dbhubNoDialect('sqlserver')).toMatch(
      /^dbhub: the database behind DBHub is sqlserver, which this profile does not support \(it writes SQL for sqlite, postgres/,
    );
    expect(dbhubNoDialect('sqlserver')).not.toMatch(/dbhub:ENGINE/);
    expect(dbhubNoDialect(undefined)).toMatch(/name it as --profile dbhub:ENGINE/);
  });

  /** DBHub's shapes with several sources (tools suffixed by source), over a live SQLite file. */
  const multiSource = (db: LiveSql, engine: string, called: string[]): McpClient => {
    const ok = (payload: unknown): ToolCallResult => ({ isError: false, data: { success: true, data: payload } });
    return {
      open: async () => ({ era: 'legacy', protocolVersion: 't' }),
      abandon: () => {},
      reinitialized: 0,
      listTools: async () => [
        { name: 'execute_sql_shop', description: `Execute SQL queries on the 'shop' ${engine} database` },
        {
          name: 'search_objects_shop',
          description: `Search and list database objects on the 'shop' ${engine} database`,
        },
      ],
      async callTool(name, args) {
        called.push(name);
        if (name === 'execute_sql_shop') return ok({ statements: [{ rows: await db.run(String(args.sql)) }] });
        const names = (await db.run(DIALECTS.sqlite!.tables)).map((r) => String(r.name));
        const pattern = args.pattern as string | undefined;
        const results = [];
        for (const n of names.filter((x) => pattern === undefined || x === pattern)) {
          const cols = await db.run(`select name, type, "notnull" = 0 as nullable, pk from pragma_table_info('${n}')`);
          results.push({
            name: n,
            row_count: 1,
            columns: cols.map((c) => ({ name: c.name, type: c.type, nullable: Boolean(c.nullable) })),
            indexes: [{ columns: cols.filter((c) => Number(c.pk) > 0).map((c) => c.name), primary: true }],
          });
        }
        return ok({ results });
      },
      close: async () => {},
    };
  };

  it('drives the first source of a multi-source DBHub with the engine its description names; refuses SQL Server plainly', async () => {
    const db = await liveEngines()[0]!.open('dbhub');
    try {
      await db.run('create table things (id integer primary key, name text)');
      await db.exec('insert into things (id, name) values (?, ?)', [1, 'one']);
      const called: string[] = [];
      const options: PeerOptions = {};
      const client = new PeerClient(PEERS.dbhub!, multiSource(db, 'sqlite', called), options);
      await client.open();
      await client.listTools();
      expect(data<{ row: unknown }>(await client.callTool('get', { table: 'things', key: 1 })).row).toEqual({
        id: 1,
        name: 'one',
      });
      expect(new Set(called)).toEqual(new Set(['search_objects_shop', 'execute_sql_shop']));

      const sqlserver = new PeerClient(PEERS.dbhub!, multiSource(db, 'sqlserver', []), options);
      await sqlserver.open();
      await sqlserver.listTools();
      await expect(sqlserver.callTool('get', { table: 'things', key: 1 })).rejects.toThrow(
        /is sqlserver, which this profile does not support/,
      );
    } finally {
      await db.close();
    }
  });
});
