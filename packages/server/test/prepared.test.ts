import { engineForUrl } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient } from './support/mcp.js';

/**
 * Named prepared statements on PostgreSQL (the engines' postgres/prepared.ts, tested in their
 * postgres-prepared.test.ts), on a real server, through the write tools' transactions: a column
 * type changing under a prepared plan costs no error and never runs a write twice.
 */

const target = liveTargets().find((t) => t.engine === 'postgres');

/** One connection, for the schema changes. */
async function open(url: string) {
  return engineForUrl(url).connect(url, { poolSize: 1 });
}

describe.runIf(target)('PostgreSQL named statements', () => {
  let url = '';

  beforeAll(async () => {
    url = await freshDatabase(target!, 'bench_prepared');
  });

  it('write tools run once and succeed after a column type changes under their statements', async () => {
    const schema = await open(`${url}?statement_cache_size=0`);
    // one connection, so the statements the writes prepared are the ones that go stale
    const client = await connectClient('stdio', 'modern', { dbUrl: url, args: ['--allow-writes', '--pool-size', '1'] });
    try {
      await sql`create table w2 (id int primary key, v int not null)`.execute(schema.db);
      const insert = (id: number) => callJson(client, 'insert', { table: 'w2', rows: [{ id, v: id }] });
      const update = (id: number) =>
        callJson(client, 'update', { table: 'w2', set: { v: id + 100 }, filter: `id = ${id}` });
      for (const id of [1, 2]) {
        expect((await insert(id)).isError).toBe(false);
        expect((await update(id)).isError).toBe(false);
      }
      // insert returns "id": its result type changes
      await sql`alter table w2 alter column id type bigint`.execute(schema.db);
      for (const id of [3, 4]) {
        const inserted = await insert(id);
        expect(inserted.isError, JSON.stringify(inserted.data)).toBe(false);
        const updated = await update(id);
        expect(updated.isError, JSON.stringify(updated.data)).toBe(false);
      }
      const { rows } = await sql<{ id: number; v: number }>`select id::int as id, v from w2 order by id`.execute(
        schema.db,
      );
      expect(rows).toEqual([1, 2, 3, 4].map((id) => ({ id, v: id + 100 })));
    } finally {
      await client.close();
      await schema.close();
    }
  });

  afterAll(async () => {
    const { db, close } = await open(url);
    await sql`drop table if exists w2`.execute(db);
    await close();
  });
});
