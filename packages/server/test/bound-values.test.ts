import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Random } from '@mcp-db-bench/contract';
import { ENGINES, engineForUrl } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundValuesRefusal, DEFAULT_MAX_BOUND_VALUES, valuesPerStatement } from '../src/bound-values.js';
import { DEFAULT_LIMITS } from '../src/context.js';
import { likePattern } from '../src/filter/compile.js';
import { reservedKeyPath } from '../src/schemas.js';
import { READ_TOOLS, type ToolContext } from '../src/tools/index.js';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';
import { loadShop } from './support/shop.js';

const query = READ_TOOLS.find((t) => t.name === 'query')!;

/** `or` of `in` lists over `column` holding `count` values in all (lists of at most 1,000, the grammar's limit). */
function flood(count: number, column = 'customer_id') {
  const lists = [];
  for (let from = 0; from < count; from += 1000) {
    lists.push({ column, op: 'in', value: Array.from({ length: Math.min(1000, count - from) }, (_, i) => from + i) });
  }
  return lists.length === 1 ? lists[0]! : { or: lists };
}

describe('the ceiling on bound values, per engine (no database)', () => {
  it.each(ENGINES.map((e) => [e.title, e] as const))('%s: the smaller of the option and the engine', (_, engine) => {
    const ctx = { engine, limits: DEFAULT_LIMITS } as ToolContext;
    const ceiling = Math.min(DEFAULT_MAX_BOUND_VALUES, valuesPerStatement(engine));
    expect(boundValuesRefusal(query, { table: 't', filter: flood(ceiling) }, ctx)).toBeUndefined();
    const refusal = boundValuesRefusal(query, { table: 't', filter: flood(ceiling + 1) }, ctx)!;
    expect(refusal.code).toBe('limit_exceeded');
    expect(refusal.message).toContain(`binds ${ceiling + 1} values`);
    expect(refusal.message).toContain('--max-bound-values');
    // SQL Server takes 2,099 parameters: its own limit stops the call, and the message says so
    if (ceiling < DEFAULT_MAX_BOUND_VALUES) expect(refusal.message).toContain(`${engine.title} takes in one statement`);
    else expect(refusal.message).toContain(`the server's ceiling of ${DEFAULT_MAX_BOUND_VALUES}`);
  });
});

describe('what the ceiling leaves cheap', () => {
  it('finds "__proto__" anywhere in the arguments, lists included', () => {
    const args = JSON.parse('{"rows": [{"a": 1}, {"b": [1, {"__proto__": 2}]}]}');
    expect(reservedKeyPath(args)).toEqual(['rows', '1', 'b', '1', '__proto__']);
    expect(reservedKeyPath({ filter: { or: Array.from({ length: 1000 }, (_, i) => i) } })).toBeUndefined();
    expect(reservedKeyPath(5)).toBeUndefined();
  });

  it('writes like patterns as the character-by-character reading does', () => {
    const reference = (pattern: string) => {
      let out = '';
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i]!;
        if (c === '\\' && i + 1 < pattern.length) {
          const next = pattern[++i]!;
          out += '%_!['.includes(next) ? `!${next}` : next;
        } else if (c === '!' || c === '[') out += `!${c}`;
        else out += c;
      }
      return out;
    };
    const alphabet = ['\\', '%', '_', '!', '[', ']', 'a', 'é', '\ud83d\ude00', '\ud800'];
    const random = new Random(53);
    const next = (n: number) => random.int(0, n - 1);
    for (let k = 0; k < 20_000; k++) {
      let pattern = '';
      for (let i = next(14); i > 0; i--) pattern += alphabet[next(alphabet.length)];
      expect(likePattern(pattern), JSON.stringify(pattern)).toBe(reference(pattern));
    }
    const long = '\\%!['.repeat(5000);
    expect(likePattern(long)).toBe(reference(long));
  });
});

describe('the ceiling through the SDK (stdio, 2025 era)', () => {
  let client: Client;
  beforeAll(async () => {
    const dbUrl = await freshDatabase({ engine: 'sqlite', baseUrl: 'sqlite:' }, 'bench_bounds_stdio');
    await loadShop(dbUrl);
    client = await connectClient('stdio', 'legacy', { dbUrl });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it('refuses the 499,000-value filter there too, before the SDK validates it', async () => {
    const outcome = await callJson(client, 'query', { table: 'orders', filter: flood(499_000) });
    expect(outcome.data).toMatchObject({ error: { code: 'limit_exceeded' } });
    expect((await callJson(client, 'get', { table: 'orders', key: 1 })).data).toMatchObject({ found: true });
  });
});

describe.each(liveTargets())('$engine: the ceiling on bound values', (target) => {
  let dir = '';
  let dbUrl = '';
  const servers: HttpServer[] = [];
  let client: Client;
  let raised: Client;
  let configured: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bound-values-'));
    // a database for each server: PGlite opens in one process at a time
    const urls = await Promise.all(
      ['bench_bounds', 'bench_bounds_raised', 'bench_bounds_config'].map((name) => freshDatabase(target, name)),
    );
    await Promise.all(urls.map((url) => loadShop(url)));
    dbUrl = urls[0]!;
    const config = join(dir, 'server.yaml');
    writeFileSync(
      config,
      'maxBoundValues: 50\ntools:\n  order_by_id:\n    description: one order\n    sql: select id from orders where id = :id\n    parameters:\n      id: {type: integer}\n',
    );
    // one at a time: three embedded engines starting at once on a busy machine can outlast the ready timeout
    const args = [
      ['--allow-writes', '--sql'],
      ['--max-bound-values', '1000000'],
      ['--config', config],
    ];
    for (const [i, url] of urls.entries()) servers.push(await startHttpServer(url, args[i]));
    const clients = await Promise.all(
      servers.map((s, i) => connectClient('http', 'modern', { dbUrl: urls[i]!, endpoint: s.endpoint })),
    );
    [client, raised, configured] = clients as [Client, Client, Client];
  }, 120_000);
  afterAll(async () => {
    await Promise.all([client?.close(), raised?.close(), configured?.close()]);
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const refusal = async (c: Client, name: string, args: Record<string, unknown>) => {
    const outcome = await callJson(c, name, args);
    expect(outcome.isError, JSON.stringify(outcome.data).slice(0, 300)).toBe(true);
    return (outcome.data as { error: { code: string; message: string } }).error;
  };
  const rows = async (c: Client, args: Record<string, unknown>) => {
    const outcome = await callJson(c, 'query', { table: 'orders', columns: ['id'], ...args });
    expect(outcome.isError, JSON.stringify(outcome.data).slice(0, 300)).toBe(false);
    return (outcome.data as { rows: { id: number }[] }).rows;
  };

  it('refuses the 499,000-value filter with limit_exceeded naming the ceiling, and keeps serving', async () => {
    const started = performance.now();
    const error = await refusal(client, 'query', { table: 'orders', filter: flood(499_000) });
    expect(error.code).toBe('limit_exceeded');
    expect(error.message).toContain('binds 499000 values');
    expect(error.message).toContain(`ceiling of ${DEFAULT_MAX_BOUND_VALUES} (--max-bound-values`);
    // refused, not compiled: far from the second a call of this size took (a wide margin for a shared machine)
    expect(performance.now() - started).toBeLessThan(5_000);
    const got = await callJson(client, 'get', { table: 'orders', key: 1 });
    expect(got.data).toMatchObject({ found: true });
  });

  it('answers a call at the ceiling, and refuses one value more', async () => {
    const ceiling = Math.min(DEFAULT_MAX_BOUND_VALUES, valuesPerStatement(engineForUrl(dbUrl)));
    // customer ids 1..24 are among the values: every order matches
    expect(await rows(client, { filter: flood(ceiling), limit: 1000 })).toHaveLength(90);
    expect((await refusal(client, 'query', { table: 'orders', filter: flood(ceiling + 1) })).code).toBe(
      'limit_exceeded',
    );
  });

  it('counts every kind of value: aggregate, update, delete, insert rows, transact, sql params', async () => {
    const over = DEFAULT_MAX_BOUND_VALUES + 1;
    const calls: [string, Record<string, unknown>][] = [
      [
        'aggregate',
        { table: 'orders', aggregates: [{ fn: 'count' }], filter: flood(6000), having: flood(5000, 'count') },
      ],
      ['update', { table: 'orders', set: { note: 'x' }, filter: flood(over, 'id') }],
      ['delete', { table: 'orders', filter: flood(over, 'id') }],
      // 11 cells a row: past the ceiling before a column is looked up
      ['insert', { table: 'order_items', rows: Array.from({ length: 1000 }, (_, i) => ({ ...cells(11), i })) }],
      ['transact', { steps: [{ op: 'delete', table: 'orders', filter: flood(over, 'id') }] }],
      [
        'sql',
        { sql: 'select :p0 as v', params: Object.fromEntries(Array.from({ length: over }, (_, i) => [`p${i}`, i])) },
      ],
    ];
    for (const [name, args] of calls) {
      const error = await refusal(client, name, args);
      expect(error.code, `${name}: ${error.message}`).toBe('limit_exceeded');
      expect(error.message).toContain('--max-bound-values');
    }
    // nothing was written
    expect(await rows(client, { limit: 1000 })).toHaveLength(90);
  });

  it("stops a call at the engine's own limit on parameters per statement, and says so", async () => {
    // the engine the server picks by the URL (a mysql:// URL to MariaDB is served as MySQL)
    const engine = engineForUrl(dbUrl);
    const most = valuesPerStatement(engine);
    const error = await refusal(raised, 'query', { table: 'orders', filter: flood(most + 1) });
    expect(error.code).toBe('limit_exceeded');
    expect(error.message).toContain(`binds ${most + 1} values, more than ${engine.title} takes in one statement`);
    expect(await rows(raised, { filter: flood(most), limit: 1000 })).toHaveLength(90);
  }, 60_000);

  it('takes the ceiling from the config file, and counts custom tools too', async () => {
    expect((await rows(configured, { filter: flood(50) })).length).toBeGreaterThan(0);
    const error = await refusal(configured, 'query', { table: 'orders', filter: flood(51) });
    expect(error.message).toContain("binds 51 values, more than the server's ceiling of 50");
    const custom = await refusal(configured, 'order_by_id', { id: 1, ...cells(50) });
    expect(custom.code).toBe('limit_exceeded');
    expect((await callJson(configured, 'order_by_id', { id: 3 })).data).toMatchObject({ rows: [{ id: 3 }] });
  });
});

/** `{c0: 0, c1: 1, ...}`: `n` values under names no table has. */
function cells(n: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`c${i}`, i]));
}
