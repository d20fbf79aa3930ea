import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Connection } from '../src/databases/engine.js';
import { sqlite } from '../src/databases/sqlite/index.js';

/**
 * SQLite's primary-key reads run on the main thread (src/databases/sqlite/seek.ts). That is safe
 * only while they never wait: a file locked by a writer sends the read to a worker thread, and
 * the seek connection itself can never write.
 */
let dir = '';
let file = '';
let connection: Connection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-db-seek-'));
  file = join(dir, 'seek.db');
  // The default rollback journal: readers are locked out while a writer holds the file.
  const db = new Database(file);
  db.exec("create table t (id integer primary key, v text not null); insert into t values (1, 'one');");
  db.close();
  connection = await sqlite.connect(`sqlite:${file}`, { poolSize: 2, readOnly: false });
});
afterAll(async () => {
  await connection?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('has a seek connection beside the worker pool', () => {
  expect(connection.seekDb).toBeDefined();
  expect(connection.seekDb).not.toBe(connection.db);
});

it('reads by primary key on this thread', async () => {
  const rows = await connection.seekDb!.selectFrom('t').selectAll().where('id', '=', 1).execute();
  expect(rows).toEqual([{ id: 1n, v: 'one' }]);
});

it('sends a read that finds the file locked to a worker thread, leaving the event loop free', async () => {
  const writer = new Database(file);
  writer.exec('begin exclusive');
  try {
    const started = performance.now();
    const read = connection.seekDb!.selectFrom('t').selectAll().where('id', '=', 1).execute();
    // A timer due in 50 ms fires on time: nothing waits for the lock on this thread.
    const timerLateness = await new Promise<number>((resolve) => setTimeout(() => resolve(performance.now() - started - 50), 50));
    expect(timerLateness).toBeLessThan(100);
    setTimeout(() => writer.exec('commit'), 250);
    expect(await read).toEqual([{ id: 1n, v: 'one' }]);
    // It waited for the writer (the worker's busy_timeout), so it did not fail on the lock.
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  } finally {
    if (writer.inTransaction) writer.exec('commit');
    writer.close();
  }
});

it('cannot write, even when the server may', async () => {
  // A statement that returns no rows is not run; one that does (returning) meets a read-only file.
  await expect(connection.seekDb!.insertInto('t').values({ id: 2, v: 'two' }).execute()).rejects.toThrow(/does not return data/);
  await expect(connection.seekDb!.insertInto('t').values({ id: 2, v: 'two' }).returning('id').execute()).rejects.toThrow(/readonly/);
  await expect(connection.seekDb!.transaction().execute(async () => {})).rejects.toThrow(/only reads/);
  const rows = await connection.db.selectFrom('t').select('id').execute();
  expect(rows).toEqual([{ id: 1n }]);
});
