import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aggregateInput, ERROR_CODES, type ErrorCode, getInput, queryInput } from '@mcp-db-bench/contract';
import { type AnyDb, type Engine, engineForUrl } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaCache } from '../src/catalog/cache.js';
import type { Catalog } from '../src/catalog/types.js';
import { DEFAULT_LIMITS } from '../src/context.js';
import { encodeCursor, fingerprint } from '../src/query/cursor.js';
import { resolveColumn } from '../src/query/names.js';
import { planAggregate } from '../src/tools/aggregate.js';
import { planGet } from '../src/tools/get.js';
import { planQuery } from '../src/tools/query.js';
import { deleteRows, insertRows, updateRows, type WriteScope } from '../src/write/statements.js';
import { callJson, connectClient, exitOf, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

/**
 * Hostile input in every argument that reaches SQL, through a real MCP client over HTTP,
 * against every live engine. The corpus is data (fixtures/attacks/injection.json); this file
 * places each payload in every argument slot. For every call:
 * - no table changes (a checksum of every table before and after the whole corpus);
 * - a canary table's secret never appears in a response unless the call names that table;
 * - a rejected input gets a tool error with a documented code and a message naming the argument;
 * - an accepted input is compiled again with the engine's compile-only dialect: every identifier
 *   in the SQL is a catalog name of the requested table, and for value slots the SQL text is
 *   byte-identical to the SQL for a benign value (the hostile text exists only as a parameter).
 */

interface Entry {
  category: string;
}
interface Corpus {
  payloads: (Entry & { text: string })[];
  filterExpressions: (Entry & { text: string })[];
  filterTrees: (Entry & { tree: Record<string, unknown> })[];
  orderBy: (Entry & { terms: string[] })[];
  aggregates: (Entry & { args: Record<string, unknown> })[];
  cursors: (Entry & { cursor?: string; cursorJson?: unknown; forge?: unknown[] })[];
  keys: (Entry & { table: string; key: unknown })[];
  sqlTexts: (Entry & { text: string; refusedOn?: string[]; code?: string })[];
}

const CORPUS_FILE = fileURLToPath(new URL('../../../fixtures/attacks/injection.json', import.meta.url));
const corpus = JSON.parse(readFileSync(CORPUS_FILE, 'utf8')) as Corpus;

const CANARY_TABLE = 'secret_canary';
const SECRET = 'CANARY-4f1d2c9e-never-leak';

type Tool = 'query' | 'get' | 'aggregate' | 'describe_table';

/** One hostile call. */
interface Case {
  label: string;
  tool: Tool;
  args: Record<string, unknown>;
  /** the argument a rejection must name */
  mention: RegExp;
  /** codes a rejection may carry */
  codes: readonly ErrorCode[];
  /** for value slots: the same call with a benign value, whose SQL text must be identical */
  twin?: Record<string, unknown>;
  /** the hostile text, which must not appear in the SQL of an accepted call */
  payload?: string;
}

const quoteIdent = (p: string) => `"${p.replaceAll('"', '""')}"`;
const quoteString = (p: string) => `'${p.replaceAll("'", "''")}'`;
const TABLE_CODES: ErrorCode[] = ['unknown_table', 'invalid_argument'];
const COLUMN_CODES: ErrorCode[] = ['unknown_column', 'invalid_argument'];
const FILTER_CODES: ErrorCode[] = ['invalid_filter', 'unknown_column', 'type_mismatch'];
const VALUE_CODES: ErrorCode[] = ['invalid_filter', 'type_mismatch'];
const COUNT_BY_CUSTOMER = { table: 'orders', aggregates: [{ fn: 'count', as: 'n' }], group_by: ['customer_id'] };
/** A cursor the server would accept for customers ordered by name, carrying values of our choosing. */
const forgeCursor = (k: unknown[]) => encodeCursor(fingerprint(['customers', NAME_KEYS, null]), k as never);
const NAME_KEYS = [
  { name: 'name', direction: 'asc', nullable: false },
  { name: 'id', direction: 'asc', nullable: false },
];

/** Every argument slot that reaches SQL, filled with payload `p`. */
function slots(p: string): Omit<Case, 'label'>[] {
  const q = (args: Record<string, unknown>) => ({ table: 'customers', ...args });
  const value = (make: (v: string) => Record<string, unknown>, benign: string) => ({
    args: make(p),
    twin: make(benign),
    payload: p,
  });
  return [
    { tool: 'query', args: { table: p }, mention: /table/, codes: TABLE_CODES, payload: p },
    { tool: 'describe_table', args: { table: p }, mention: /table/, codes: TABLE_CODES, payload: p },
    {
      tool: 'aggregate',
      args: { table: p, aggregates: [{ fn: 'count' }] },
      mention: /table/,
      codes: TABLE_CODES,
      payload: p,
    },
    { tool: 'query', args: q({ columns: [p] }), mention: /columns\.?\[?0/, codes: COLUMN_CODES, payload: p },
    { tool: 'query', args: q({ columns: ['id', p] }), mention: /columns\.?\[?1/, codes: COLUMN_CODES, payload: p },
    { tool: 'get', args: q({ key: 1, columns: [p] }), mention: /columns\.?\[?0/, codes: COLUMN_CODES, payload: p },
    { tool: 'query', args: q({ filter: `${quoteIdent(p)} = 1` }), mention: /filter/, codes: FILTER_CODES, payload: p },
    { tool: 'query', args: q({ filter: `id = ${p}` }), mention: /filter/, codes: FILTER_CODES, payload: p },
    { tool: 'query', args: q({ filter: `${p} = 1` }), mention: /filter/, codes: FILTER_CODES, payload: p },
    {
      tool: 'query',
      ...value((v) => q({ filter: `name = ${quoteString(v)}` }), 'benign'),
      mention: /filter/,
      codes: VALUE_CODES,
    },
    {
      tool: 'query',
      ...value((v) => q({ filter: `name not like ${quoteString(v)} or email in ('a', ${quoteString(v)})` }), 'benign'),
      mention: /filter/,
      codes: VALUE_CODES,
    },
    {
      tool: 'query',
      args: q({ filter: { column: p, op: '=', value: 1 } }),
      mention: /filter\.column/,
      codes: FILTER_CODES,
      payload: p,
    },
    {
      tool: 'query',
      args: q({ filter: { column: 'name', op: p, value: 'x' } }),
      mention: /filter\.op/,
      codes: ['invalid_filter'],
      payload: p,
    },
    {
      tool: 'query',
      ...value((v) => q({ filter: { column: 'name', op: '=', value: v } }), 'benign'),
      mention: /filter\.value/,
      codes: VALUE_CODES,
    },
    {
      tool: 'query',
      ...value((v) => q({ filter: { column: 'name', op: 'like', value: v } }), 'benign'),
      mention: /filter\.value/,
      codes: VALUE_CODES,
    },
    {
      tool: 'query',
      ...value(
        (v) =>
          q({
            filter: {
              or: [
                { column: 'email', op: 'in', value: ['x', v] },
                { column: 'name', op: '!=', value: v },
              ],
            },
          }),
        'benign',
      ),
      mention: /filter\.or/,
      codes: VALUE_CODES,
    },
    {
      tool: 'query',
      ...value((v) => q({ filter: { column: 'id', op: '=', value: v } }), '7'),
      mention: /filter\.value/,
      codes: VALUE_CODES,
    },
    {
      tool: 'query',
      ...value(
        (v) => q({ filter: { not: { column: 'created_at', op: 'between', value: [v, '2030-01-01T00:00:00Z'] } } }),
        '2020-01-01T00:00:00Z',
      ),
      mention: /filter\.not\.value/,
      codes: VALUE_CODES,
    },
    { tool: 'query', args: q({ order_by: [p] }), mention: /order_by\.?\[?0/, codes: COLUMN_CODES, payload: p },
    {
      tool: 'query',
      args: q({ order_by: ['name', `${p} desc`] }),
      mention: /order_by\.?\[?1/,
      codes: COLUMN_CODES,
      payload: p,
    },
    {
      tool: 'aggregate',
      args: { ...COUNT_BY_CUSTOMER, group_by: [p] },
      mention: /group_by\.?\[?0/,
      codes: COLUMN_CODES,
      payload: p,
    },
    {
      tool: 'aggregate',
      args: { table: 'orders', aggregates: [{ fn: 'max', column: p }] },
      mention: /aggregates\.?\[?0/,
      codes: COLUMN_CODES,
      payload: p,
    },
    {
      tool: 'aggregate',
      args: { table: 'orders', aggregates: [{ fn: 'count', as: p }] },
      mention: /aggregates\.?\[?0/,
      codes: ['invalid_argument'],
      payload: p,
    },
    {
      tool: 'aggregate',
      args: { ...COUNT_BY_CUSTOMER, having: { column: p, op: '>', value: 0 } },
      mention: /having/,
      codes: FILTER_CODES,
      payload: p,
    },
    {
      tool: 'aggregate',
      ...value((v) => ({ ...COUNT_BY_CUSTOMER, having: `n > ${quoteString(v)}` }), '7'),
      mention: /having/,
      codes: VALUE_CODES,
    },
    {
      tool: 'aggregate',
      args: { ...COUNT_BY_CUSTOMER, order_by: [p] },
      mention: /order_by\.?\[?0/,
      codes: COLUMN_CODES,
      payload: p,
    },
    {
      tool: 'get',
      ...value((v) => ({ table: 'orders', key: v }), '7'),
      mention: /key/,
      codes: ['type_mismatch', 'invalid_argument'],
    },
    {
      tool: 'get',
      ...value((v) => ({ table: 'orders', key: { id: v } }), '7'),
      mention: /key/,
      codes: ['type_mismatch', 'invalid_argument'],
    },
    {
      tool: 'get',
      args: { table: 'orders', key: { [p]: 1 } },
      mention: /key/,
      codes: ['invalid_argument'],
      payload: p,
    },
    {
      tool: 'get',
      ...value((v) => ({ table: 'order_items', key: { order_id: 1, line_no: v } }), '1'),
      mention: /key/,
      codes: ['type_mismatch', 'invalid_argument'],
    },
    {
      tool: 'query',
      args: q({ cursor: p }),
      mention: /cursor/,
      codes: ['invalid_cursor', 'invalid_argument'],
      payload: p,
    },
    {
      tool: 'query',
      ...value((v) => q({ order_by: ['name'], cursor: forgeCursor([v, 1]) }), 'benign'),
      mention: /cursor/,
      codes: ['invalid_cursor'],
    },
  ];
}

/** The whole corpus as calls. */
function cases(): Case[] {
  const all: Case[] = [];
  corpus.payloads.forEach((p, i) => {
    for (const [s, slot] of slots(p.text).entries())
      all.push({ ...slot, label: `payload ${i} (${p.category}) slot ${s}` });
  });
  corpus.filterExpressions.forEach((f, i) => {
    all.push({
      label: `filter expression ${i} (${f.category})`,
      tool: 'query',
      args: { table: 'customers', filter: f.text },
      mention: /filter/,
      codes: [...FILTER_CODES, 'invalid_argument'],
    });
  });
  corpus.filterTrees.forEach((f, i) => {
    all.push({
      label: `filter tree ${i} (${f.category})`,
      tool: 'query',
      args: { table: 'customers', filter: f.tree },
      mention: /filter/,
      codes: [...FILTER_CODES, 'invalid_argument'],
    });
    all.push({
      label: `having tree ${i} (${f.category})`,
      tool: 'aggregate',
      args: { ...COUNT_BY_CUSTOMER, having: f.tree },
      mention: /having/,
      codes: [...FILTER_CODES, 'invalid_argument'],
    });
  });
  corpus.orderBy.forEach((o, i) => {
    all.push({
      label: `order_by ${i} (${o.category})`,
      tool: 'query',
      args: { table: 'customers', order_by: o.terms },
      mention: /order_by/,
      codes: COLUMN_CODES,
    });
  });
  corpus.aggregates.forEach((a, i) => {
    all.push({
      label: `aggregate ${i} (${a.category})`,
      tool: 'aggregate',
      args: { table: 'orders', ...a.args },
      mention: /aggregates|having|group_by|order_by|arguments/,
      codes: [...FILTER_CODES, ...COLUMN_CODES],
    });
  });
  corpus.cursors.forEach((c, i) => {
    const cursor = c.forge
      ? forgeCursor(c.forge)
      : c.cursorJson !== undefined
        ? Buffer.from(JSON.stringify(c.cursorJson)).toString('base64url')
        : c.cursor!;
    const args = { table: 'customers', order_by: ['name'], cursor };
    all.push({
      label: `cursor ${i} (${c.category})`,
      tool: 'query',
      args,
      mention: /cursor/,
      codes: ['invalid_cursor', 'invalid_argument'],
    });
  });
  corpus.keys.forEach((k, i) => {
    all.push({
      label: `key ${i} (${k.category})`,
      tool: 'get',
      args: { table: k.table, key: k.key },
      mention: /key/,
      codes: ['type_mismatch', 'invalid_argument'],
    });
  });
  return all;
}

/** Identifiers the compiled SQL contains, in either quoting style. */
function identifiers(text: string): string[] {
  return [...text.matchAll(/"((?:[^"]|"")*)"|`((?:[^`]|``)*)`/g)].map((m) =>
    (m[1] ?? m[2]!).replace(/""|``/g, (q) => q[0]!),
  );
}

/** Builds the statement the server would run for `args`, offline. */
function plan(tool: Tool, args: Record<string, unknown>, catalog: Catalog, engine: Engine, db: AnyDb) {
  if (tool === 'query') return planQuery(queryInput.parse(args), catalog, engine, db, DEFAULT_LIMITS).compiled;
  if (tool === 'get') return planGet(getInput.parse(args), catalog, engine, db).compiled;
  if (tool === 'aggregate')
    return planAggregate(aggregateInput.parse(args), catalog, engine, db, DEFAULT_LIMITS).compiled;
  return undefined;
}

/** Names the SQL of `args` may contain: the requested table, its columns, aggregate outputs. */
function allowedNames(tool: Tool, args: Record<string, unknown>, catalog: Catalog): Set<string> {
  const table = [...catalog.table.values()].find((t) => t.name.toLowerCase() === String(args.table).toLowerCase())!;
  const names = new Set<string>(['t', table.name, ...table.columns.map((c) => c.name)]);
  if (tool === 'aggregate') {
    for (const a of args.aggregates as { fn: string; column?: string; as?: string }[]) {
      const column = a.column === undefined ? undefined : resolveColumn(table, a.column).name;
      names.add(a.as ?? (column ? `${a.fn}_${column}` : 'count'));
    }
  }
  return names;
}

/** A digest of every row of every table, and the list of tables: any write changes it. */
async function checksum(engine: Engine, db: AnyDb): Promise<Record<string, string>> {
  const raw = await engine.introspect(db);
  const sums: Record<string, string> = {
    '(tables)': raw.tables
      .map((t) => `${t.kind}:${t.name}`)
      .sort()
      .join(','),
  };
  for (const t of raw.tables.filter((x) => x.kind === 'table')) {
    const rows = await db.selectFrom(sql.id(t.name).as('t')).selectAll().execute();
    const lines = rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();
    sums[t.name] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex')}`;
  }
  return sums;
}

const ALL_CASES = cases();
const targets = liveTargets();

it('the corpus has at least 200 hostile inputs in every category of argument', () => {
  expect(corpus.payloads.length).toBeGreaterThanOrEqual(60);
  expect(ALL_CASES.length).toBeGreaterThanOrEqual(200);
  for (const tool of ['query', 'get', 'aggregate', 'describe_table'])
    expect(ALL_CASES.some((c) => c.tool === tool)).toBe(true);
});

describe.each(targets)('$engine', (target) => {
  let dbUrl = '';
  let server: HttpServer;
  let client: Client;
  let engine: Engine;
  let before: Record<string, unknown>;
  let catalog: Catalog;
  let compiler: AnyDb;

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_fuzz_injection');
    await loadShop(dbUrl);
    engine = engineForUrl(dbUrl);
    await withDirect(engine, dbUrl, async (db) => {
      await db.schema
        .createTable(CANARY_TABLE)
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('secret', 'varchar(100)', (c) => c.notNull())
        .execute();
      await db.insertInto(CANARY_TABLE).values({ id: 1, secret: SECRET }).execute();
      catalog = await new SchemaCache(engine, db, 0).get();
      before = await checksum(engine, db);
    });
    compiler = new Kysely({ dialect: engine.compileOnlyDialect() });
    server = await startHttpServer(dbUrl);
    client = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it(`${ALL_CASES.length} hostile calls: no writes, no leaks, SQL text never from the caller, clear errors`, async () => {
    const failures: string[] = [];
    const tally = new Map<string, number>();
    const fail = (c: Case, why: string) =>
      failures.push(`${c.label} ${c.tool} ${JSON.stringify(c.args).slice(0, 200)}: ${why}`);

    const check = async (c: Case) => {
      let outcome: Awaited<ReturnType<typeof callJson>>;
      try {
        outcome = await callJson(client, c.tool, c.args);
      } catch (error) {
        return fail(c, `call failed: ${(error as Error).message}`);
      }
      const text = JSON.stringify(outcome.data);
      const namesCanary = String(c.args.table).toLowerCase() === CANARY_TABLE;
      if (text.includes(SECRET) && !namesCanary) fail(c, 'the canary secret leaked');
      if (outcome.isError) {
        const error = (outcome.data as { error?: { code?: string; message?: unknown } }).error;
        const code = error?.code as ErrorCode;
        tally.set(code, (tally.get(code) ?? 0) + 1);
        if (!ERROR_CODES.includes(code)) return fail(c, `not a documented code: ${text}`);
        if (!c.codes.includes(code)) fail(c, `code ${code}, expected one of ${c.codes.join('|')}: ${text}`);
        // The message names the argument, or (when the database itself refused a bound value,
        // e.g. PostgreSQL's range check of a 32-bit column) quotes the value.
        const message = typeof error?.message === 'string' ? error.message : '';
        const quotesValue = c.payload !== undefined && c.payload.length >= 4 && message.includes(c.payload);
        if (!c.mention.test(message) && !quotesValue)
          fail(c, `message does not name the argument (${c.mention}): ${text}`);
        if (code === 'internal_error' || code === 'database_error') fail(c, `reached the database or crashed: ${text}`);
        return;
      }
      tally.set('accepted', (tally.get('accepted') ?? 0) + 1);
      const compiled = plan(c.tool, c.args, catalog, engine, compiler);
      if (!compiled) return;
      const allowed = allowedNames(c.tool, c.args, catalog);
      const foreign = identifiers(compiled.sql).filter((n) => !allowed.has(n));
      if (foreign.length)
        fail(c, `SQL names ${foreign.join(', ')}, not catalog names of ${c.args.table}: ${compiled.sql}`);
      const outsideIdentifiers = compiled.sql.replace(/"(?:[^"]|"")*"|`(?:[^`]|``)*`/g, '');
      if (/'/.test(outsideIdentifiers.replaceAll("escape '!'", '')))
        fail(c, `SQL carries a string literal: ${compiled.sql}`);
      const benign = c.twin && plan(c.tool, c.twin, catalog, engine, compiler)!;
      if (benign && benign.sql !== compiled.sql)
        fail(c, `SQL text depends on the value:\n  ${compiled.sql}\n  ${benign.sql}`);
      // A bare word may be a keyword of the statement itself ('select'), and '$1' a placeholder:
      // only text that the benign statement lacks counts. Identifiers were checked above.
      const p = c.payload?.trim();
      if (p && p.length >= 2 && !/^\w+$/.test(p) && compiled.sql.includes(p) && !benign?.sql.includes(p)) {
        fail(c, `payload appears in SQL: ${compiled.sql}`);
      }
    };

    const WIDTH = 6;
    for (let i = 0; i < ALL_CASES.length; i += WIDTH) await Promise.all(ALL_CASES.slice(i, i + WIDTH).map(check));

    // The server answered everything and still serves.
    expect(exitOf(server.process)).toBeUndefined();
    const ok = await callJson(client, 'get', { table: 'orders', key: 1 });
    expect(ok.isError).toBe(false);
    // Read back once the server is gone: an embedded engine may allow one process at a time.
    await client.close();
    await server.stop();
    const after = await withDirect(engine, dbUrl, (db) => checksum(engine, db));
    process.stdout.write(
      `injection ${target.engine}: ${ALL_CASES.length} calls; ${[...tally].map(([k, v]) => `${k} ${v}`).join(', ')}; ${failures.length} failures\n`,
    );
    expect(failures.slice(0, 40)).toEqual([]);
    expect(after, 'a table changed').toEqual(before);
    expect(after['(tables)']).toContain(CANARY_TABLE);
  }, 300_000);
});

/**
 * The same payloads against the write tools and the sql tool (--allow-writes --sql). Here
 * accepted values do change the scratch table `notes`, so the checks are: a hostile value is
 * stored and read back exactly, a write aimed by a hostile value changes exactly the rows it
 * names, hostile names are refused (and a transact step refused rolls back the steps before it),
 * the SQL text of each write is byte-identical to the one for a harmless value, and every table
 * but `notes` is unchanged at the end.
 */
describe.each(targets)('$engine writes and sql', (target) => {
  let server: HttpServer;
  let client: Client;
  let engine: Engine;
  let dbUrl = '';
  let before: Record<string, unknown>;
  let scope: WriteScope;
  const captured: string[] = [];

  beforeAll(async () => {
    dbUrl = await freshDatabase(target, 'bench_fuzz_writes');
    await loadShop(dbUrl);
    engine = engineForUrl(dbUrl);
    const catalog = await withDirect(engine, dbUrl, async (db) => {
      await db.schema
        .createTable(CANARY_TABLE)
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('secret', 'varchar(100)', (c) => c.notNull())
        .execute();
      await db.insertInto(CANARY_TABLE).values({ id: 1, secret: SECRET }).execute();
      await db.schema
        .createTable('notes')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('body', 'varchar(1000)')
        .execute();
      before = await checksum(engine, db);
      return new SchemaCache(engine, db, 0).get();
    });
    const compiler = new Kysely({
      dialect: engine.compileOnlyDialect(),
      log: (event) => {
        if (event.level === 'query') captured.push(event.query.sql);
      },
    }) as AnyDb;
    scope = { db: compiler, engine, catalog, maxRows: DEFAULT_LIMITS.maxRows };
    server = await startHttpServer(dbUrl, ['--allow-writes', '--sql', '--statement-timeout', '5000']);
    client = await connectClient('http', 'modern', { dbUrl, endpoint: server.endpoint });
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  /** The SQL text a write step sends, built offline against the compile-only dialect. */
  async function writeSql(step: (s: WriteScope) => Promise<unknown>): Promise<string> {
    captured.length = 0;
    await step(scope);
    return captured.join('\n');
  }

  it(`${corpus.payloads.length} payloads in every write and sql argument, and ${corpus.sqlTexts.length} hostile sql texts`, async () => {
    const untouched = (sums: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(sums).filter(([k]) => k !== 'notes' && k !== '(tables)'));
    const failures: string[] = [];
    let calls = 0;
    const tally = new Map<string, number>();

    const call = async (label: string, tool: string, args: Record<string, unknown>) => {
      calls++;
      const outcome = await callJson(client, tool, args).catch((error: Error) => ({
        isError: true,
        data: { error: { code: 'call failed', message: error.message } },
      }));
      const text = JSON.stringify(outcome.data);
      const key = outcome.isError ? (outcome.data as { error: { code: string } }).error.code : 'accepted';
      tally.set(key, (tally.get(key) ?? 0) + 1);
      const readsCanary =
        tool === 'sql'
          ? String(args.sql).toLowerCase().includes(CANARY_TABLE)
          : String(args.table).toLowerCase() === CANARY_TABLE;
      if (text.includes(SECRET) && !readsCanary) failures.push(`${label}: the canary secret leaked`);
      if (outcome.isError && !ERROR_CODES.includes(key as ErrorCode))
        failures.push(`${label}: not a documented error: ${text}`);
      if (key === 'internal_error') failures.push(`${label}: internal error: ${text}`);
      return { ...outcome, text, code: key };
    };
    const refused = async (
      p: string,
      label: string,
      tool: string,
      args: Record<string, unknown>,
      mention: RegExp,
      codes: readonly string[],
      allowHarmless?: (data: Record<string, unknown>) => boolean,
    ) => {
      const o = await call(label, tool, args);
      if (!o.isError) {
        if (!allowHarmless?.(o.data)) failures.push(`${label}: accepted: ${o.text.slice(0, 200)}`);
        return;
      }
      if (!codes.includes(o.code))
        failures.push(`${label}: code ${o.code}, expected ${codes.join('|')}: ${o.text.slice(0, 300)}`);
      const message = (o.data as { error: { message: string } }).error.message;
      // as in the read suite: a value the database itself refused may be named by quoting it
      const quotesValue = p.length >= 4 && message.includes(p);
      if (!mention.test(message) && !quotesValue)
        failures.push(`${label}: message does not name the argument (${mention}): ${o.text.slice(0, 300)}`);
    };
    const body = async (id: number) => {
      const o = await call(`get notes ${id}`, 'get', { table: 'notes', key: id });
      return (o.data as { row?: { body?: unknown } | null }).row?.body;
    };

    const attack = async (p: string, i: number) => {
      const label = `payload ${i} (${JSON.stringify(p).slice(0, 40)})`;
      const k = 10_000 + i * 2;
      const hasNul = p.includes('\u0000');
      // A value: stored and read back exactly, then aimed at by value, with SQL text that does not depend on it.
      const ins = await call(`${label} insert value`, 'insert', { table: 'notes', rows: [{ id: k, body: p }] });
      if (hasNul) {
        if (ins.code !== 'type_mismatch' || !/rows\[0\]\.body/.test(ins.text))
          failures.push(`${label} insert NUL: ${ins.text.slice(0, 200)}`);
      } else {
        if (ins.isError) return void failures.push(`${label} insert value refused: ${ins.text.slice(0, 300)}`);
        if ((await body(k)) !== p) failures.push(`${label}: stored value differs`);
        const upd = await call(`${label} update value`, 'update', {
          table: 'notes',
          set: { body: `${p}|u` },
          filter: { column: 'id', op: '=', value: k },
        });
        if ((upd.data as { updated?: number }).updated !== 1 || (await body(k)) !== `${p}|u`)
          failures.push(`${label} update value: ${upd.text.slice(0, 200)}`);
        const aimed = await call(`${label} update by value`, 'update', {
          table: 'notes',
          set: { body: 'seen' },
          filter: { column: 'body', op: '=', value: `${p}|u` },
        });
        if ((aimed.data as { updated?: number }).updated !== 1 || (await body(k)) !== 'seen')
          failures.push(`${label} update by value: ${aimed.text.slice(0, 200)}`);
        const none = await call(`${label} delete by value`, 'delete', {
          table: 'notes',
          filter: { column: 'body', op: '=', value: p },
        });
        if ((none.data as { deleted?: number }).deleted !== 0)
          failures.push(`${label} delete by value: ${none.text.slice(0, 200)}`);
        const del = await call(`${label} delete`, 'delete', { table: 'notes', filter: `id = ${k} and body = 'seen'` });
        if ((del.data as { deleted?: number }).deleted !== 1)
          failures.push(`${label} delete: ${del.text.slice(0, 200)}`);
        const twins: [string, (v: string) => (s: WriteScope) => Promise<unknown>][] = [
          ['insert', (v) => (s) => insertRows(s, 'notes', [{ id: k, body: v }])],
          ['update', (v) => (s) => updateRows(s, 'notes', { body: v }, { column: 'body', op: '=', value: v }, 10)],
          ['delete', (v) => (s) => deleteRows(s, 'notes', { column: 'body', op: 'in', value: ['a', v] }, 10)],
        ];
        for (const [name, make] of twins) {
          const hostile = await writeSql(make(p));
          const benign = await writeSql(make('benign'));
          if (hostile !== benign)
            failures.push(`${label} ${name}: SQL text depends on the value:\n  ${hostile}\n  ${benign}`);
        }
      }
      // Names: refused, and a refused transact step undoes the steps before it.
      const noRow = (data: Record<string, unknown>) => data.updated === 0 || data.deleted === 0;
      await refused(
        p,
        `${label} insert table`,
        'insert',
        { table: p, rows: [{ zz_no_such: 1 }] },
        /table|rows\[0\]/,
        TABLE_CODES.concat('unknown_column'),
      );
      await refused(
        p,
        `${label} insert column`,
        'insert',
        { table: 'notes', rows: [{ id: k + 1, [p]: 'x' }] },
        /rows\.?\[?0/,
        COLUMN_CODES,
      );
      await refused(
        p,
        `${label} update column`,
        'update',
        { table: 'notes', set: { [p]: 'x' }, filter: `id = ${k}` },
        /set/,
        COLUMN_CODES,
      );
      await refused(
        p,
        `${label} update table`,
        'update',
        { table: p, set: { zz_no_such: 1 }, filter: 'id = -1' },
        /table|set/,
        TABLE_CODES.concat('unknown_column'),
      );
      await refused(
        p,
        `${label} update filter column`,
        'update',
        { table: 'notes', set: { body: 'x' }, filter: `${quoteIdent(p)} = 1` },
        /filter/,
        FILTER_CODES,
      );
      await refused(
        p,
        `${label} update raw filter`,
        'update',
        { table: 'notes', set: { body: 'x' }, filter: `id = ${p}` },
        /filter/,
        [...FILTER_CODES, 'invalid_argument'],
        noRow,
      );
      await refused(
        p,
        `${label} delete filter column`,
        'delete',
        { table: 'notes', filter: { column: p, op: '=', value: 1 } },
        /filter/,
        FILTER_CODES,
      );
      await refused(p, `${label} delete table`, 'delete', { table: p, filter: 'id = -1' }, /table/, TABLE_CODES, noRow);
      await refused(
        p,
        `${label} delete raw filter`,
        'delete',
        { table: 'notes', filter: p },
        /filter/,
        [...FILTER_CODES, 'invalid_argument'],
        noRow,
      );
      await refused(
        p,
        `${label} transact`,
        'transact',
        {
          steps: [
            { op: 'insert', table: 'notes', rows: [{ id: k + 1, body: 'first step' }] },
            { op: 'update', table: 'notes', set: { [p]: 'x' }, filter: 'id = -1' },
          ],
        },
        /steps\.?\[?1|set/,
        COLUMN_CODES,
      );
      if ((await body(k + 1)) !== undefined)
        failures.push(`${label} transact: the first step survived a refused second step`);
      // sql: a parameter value comes back exactly as sent; hostile parameter names and texts are refused.
      const echo = await call(`${label} sql param`, 'sql', { sql: 'select :v as v', params: { v: p } });
      if (!echo.isError && (echo.data as { rows: { v?: unknown }[] }).rows[0]?.v !== p)
        failures.push(`${label} sql param: ${echo.text.slice(0, 200)}`);
      if (echo.isError && !hasNul) failures.push(`${label} sql param refused: ${echo.text.slice(0, 300)}`);
      await refused(p, `${label} sql param name`, 'sql', { sql: 'select :v as v', params: { [p]: 1 } }, /params/, [
        'invalid_argument',
      ]);
      // The sql tool runs the caller's own query: a payload that is one may run (read-only).
      await refused(
        p,
        `${label} sql text`,
        'sql',
        { sql: p, params: { v: 1 } },
        /sql|syntax|error|near|statement/i,
        ['read_only', 'invalid_argument', 'database_error'],
        () => true,
      );
    };

    const WIDTH = 4;
    for (let i = 0; i < corpus.payloads.length; i += WIDTH) {
      await Promise.all(corpus.payloads.slice(i, i + WIDTH).map((p, j) => attack(p.text, i + j)));
    }
    // What reaches outside the database or past the call is refused on the families the corpus names
    // (sql-guard.test.ts runs the same texts as a privileged user, and looks for files and locks).
    const scratch = join(tmpdir(), `mcp-db-bench-injection-${randomUUID()}.txt`);
    for (const [i, s] of corpus.sqlTexts.entries()) {
      const label = `sql text ${i} (${s.category})`;
      const o = await call(label, 'sql', {
        sql: s.text.replaceAll('{file}', scratch),
        params: { v: 'x', __proto__: 1, constructor: 1 },
      });
      const codes = s.code ? [s.code] : ['invalid_argument', 'read_only'];
      if (s.refusedOn?.includes(engine.family) && (!o.isError || !codes.includes(o.code))) {
        failures.push(`${label}: not refused as it must be on ${engine.family}: ${o.text.slice(0, 200)}`);
      }
    }
    if (existsSync(scratch)) failures.push(`an sql text wrote ${scratch}`);

    // Read back once the server is gone: an embedded engine may allow one process at a time.
    expect(exitOf(server.process)).toBeUndefined();
    await client.close();
    await server.stop();
    const [after, left] = await withDirect(
      engine,
      dbUrl,
      async (db) => [await checksum(engine, db), await db.selectFrom('notes').selectAll().execute()] as const,
    );
    expect(untouched(after), 'a table other than notes changed').toEqual(untouched(before));
    expect(after['(tables)']).toBe(before['(tables)']);
    process.stdout.write(
      `injection ${target.engine} writes+sql: ${calls} calls; ${[...tally].map(([k, v]) => `${k} ${v}`).join(', ')}; ${failures.length} failures\n`,
    );
    expect(failures.slice(0, 40)).toEqual([]);
    expect(left).toEqual([]);
  }, 400_000);
});

/** Runs `use` on a connection of the test's own, closed again at once. */
async function withDirect<T>(engine: Engine, url: string, use: (db: AnyDb) => Promise<T>): Promise<T> {
  const { db, close } = await engine.connect(url, { poolSize: 2 });
  try {
    return await use(db);
  } finally {
    await close();
  }
}
