import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Connection, engineForUrl } from '@mcp-db-bench/engines';
import { temporaryPath } from '@mcp-db-bench/engines/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What PGlite needs beyond the shared suites: one process per directory, one caller at a time. */
describe('pglite', () => {
  const dir = temporaryPath('bench_pglite');
  const url = `pglite:${dir}`;
  const engine = engineForUrl(url);
  let conn: Connection;

  beforeAll(async () => {
    conn = await engine.connect(url, { poolSize: 1, create: true });
    await sql`create table counters (id integer primary key, n integer not null)`.execute(conn.db);
    await sql`insert into counters values (1, 0)`.execute(conn.db);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
  });

  it('refuses a directory that holds no database, unless asked to create one', async () => {
    const missing = temporaryPath('nothing-here');
    await expect(engine.connect(`pglite:${missing}`, { poolSize: 1 })).rejects.toThrow(
      /no PGlite database at .*nothing-here/,
    );
    expect(existsSync(join(missing, 'PG_VERSION'))).toBe(false);
  });

  it('refuses a second open of the same directory while the first holds it', async () => {
    await expect(engine.connect(url, { poolSize: 1 })).rejects.toMatchObject({
      code: 'database_unavailable',
      message: expect.stringMatching(/already open in this process/),
    });
  });

  it('keeps statements that arrive during a transaction out of it', async () => {
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => {
      inside = resolve;
    });
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const trx = conn.db.transaction().execute(async (t) => {
      await sql`update counters set n = 1 where id = 1`.execute(t);
      inside();
      await held;
      throw new Error('roll back');
    });
    await opened;
    // Waits for the transaction to end; inside it, it would see n = 1 and commit nothing.
    const outside = sql<{ n: number }>`select n from counters where id = 1`.execute(conn.db);
    finish();
    await expect(trx).rejects.toThrow('roll back');
    expect((await outside).rows[0]?.n).toBe(0);
  });

  it('is PostgreSQL: the same types come back as text where pg hands them over as text', async () => {
    const { rows } = await sql<
      Record<string, unknown>
    >`select 9007199254740993::int8 as big, 1.50::numeric(10,2) as price, '2024-03-31 01:30:00.123456'::timestamp as at`.execute(
      conn.db,
    );
    expect(rows[0]).toEqual({ big: '9007199254740993', price: '1.50', at: '2024-03-31 01:30:00.123456' });
  });

  it('lets go of the directory on close, so another open succeeds', async () => {
    await conn.close();
    conn = await engine.connect(url, { poolSize: 1 });
    const { rows } = await sql<{ n: number }>`select n from counters where id = 1`.execute(conn.db);
    expect(rows[0]?.n).toBe(0);
  });
});
