import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from './support/cli.js';

/**
 * A database with the user's own `customers` and `orders`: no command may write into, alter or
 * drop them, whatever it is asked. Each one stops first and says what is in the way and what to do.
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-db-bench-user-'));
const file = join(dir, 'shop.db');
const db = `sqlite:${file}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  const d = new Database(file);
  d.exec(`create table customers (id integer primary key, name text not null, vip integer);
    create table orders (id integer primary key, customer_id integer, amount real);
    insert into customers values (1, 'Ada', 1), (2, 'Grace', 0);
    insert into orders values (10, 1, 99.5);`);
  d.close();
});

/** The user's rows, as they were put there. */
function userRows(): unknown {
  const d = new Database(file, { readonly: true });
  try {
    const tables = d.prepare("select name from sqlite_master where type = 'table' order by name").pluck().all();
    return {
      tables,
      customers: d.prepare('select * from customers order by id').all(),
      orders: d.prepare('select * from orders').all(),
    };
  } finally {
    d.close();
  }
}
const BEFORE = {
  tables: ['customers', 'orders'],
  customers: [
    { id: 1, name: 'Ada', vip: 1 },
    { id: 2, name: 'Grace', vip: 0 },
  ],
  orders: [{ id: 10, customer_id: 1, amount: 99.5 }],
};

const run = (args: string[]): Promise<CliRun> =>
  runCli(args, { env: { PATH: process.env.PATH ?? '' }, timeoutMs: 60_000 });

describe("the user's tables survive every command", () => {
  it.each([
    ['seed', ['seed', '--db', db]],
    ['seed --force', ['seed', '--db', db, '--force']],
    ['index', ['index', '--db', db, '--indexes', 'baseline']],
    [
      'run',
      [
        'run',
        '--db',
        db,
        '--workloads',
        'point-read',
        '--agents',
        '1',
        '--duration',
        '1s',
        '--warmup',
        '1s',
        '--indexes',
        'optimized',
      ],
    ],
    ['serve', ['serve', '--db', db, '--port', '0']],
  ])('%s stops before touching them, names them and says what to do', async (_name, args) => {
    const r = await run(args);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/already has tables named customers, orders that mcp-db-bench seed did not make/);
    expect(r.stderr).toMatch(/give a database of its own/);
    expect(userRows()).toEqual(BEFORE);
  });
});
