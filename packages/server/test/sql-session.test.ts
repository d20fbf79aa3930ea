import { engineForUrl, type SqlFamily } from '@mcp-db-bench/engines';
import { freshDatabase, liveTargets } from '@mcp-db-bench/testing';
import type { Client } from '@modelcontextprotocol/client';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callJson, connectClient, type HttpServer, startHttpServer } from './support/mcp.js';

/**
 * No state outlives a `sql` call. A function the database defines leaves on its connection
 * everything a session can keep (out of the guard's sight: the guard sees only its name), and
 * then calls on every pooled connection look for it. As the suites' ordinary user, through a
 * server whose pool holds several connections, with calls in parallel.
 */

interface Probe {
  /** DDL: leave_state() leaves state on the session; peek_state() shows it, as text */
  functions: string[];
  /** what peek_state() shows on a session with nothing left on it */
  clean: string;
  /** the session's id, to show the calls reached several connections */
  connectionId: string;
  /** a query of the session's time zone, which the server sets on each connection to UTC */
  zone: string;
}
// Keyed by SQL family: the DDL is each family's own.
const PROBES: Partial<Record<SqlFamily, Probe>> = {
  mysql: {
    functions: [
      `create function leave_state() returns int not deterministic no sql begin
         set @leak = 42;
         set @@session.div_precision_increment = 11;
         return last_insert_id(77) + get_lock('mcp_db_bench_leak', 0);
       end`,
      `create function peek_state() returns text not deterministic no sql
         return concat_ws(',', coalesce(@leak, '-'), last_insert_id(), @@session.div_precision_increment,
                          coalesce(is_used_lock('mcp_db_bench_leak') = connection_id(), 0))`,
    ],
    clean: '-,0,4,0',
    connectionId: 'connection_id()',
    zone: 'select @@session.time_zone as z',
  },
  postgres: {
    functions: [
      `create function leave_state() returns int language plpgsql volatile as $$ begin
         perform set_config('app.leak', '42', false);
         perform pg_advisory_lock(4242);
         return 1;
       end $$`,
      `create function peek_state() returns text language sql volatile as $$
         select coalesce(nullif(current_setting('app.leak', true), ''), '-') || ',' ||
           (select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()) $$`,
    ],
    clean: '-,0',
    connectionId: 'pg_backend_pid()',
    zone: "select current_setting('TimeZone') as z",
  },
};

const targets = liveTargets().filter((t) => t.baseUrl.includes('://') && PROBES[engineForUrl(t.baseUrl).family]);

describe.each(targets)('$engine: no state outlives a sql call', (target) => {
  const engine = engineForUrl(target.baseUrl);
  const probe = PROBES[engine.family]!;
  const POOL = 4;
  let mcp: HttpServer;
  let client: Client;

  beforeAll(async () => {
    const dbUrl = await freshDatabase(target, 'bench_sql_session');
    const { db, close } = await engine.connect(dbUrl, { poolSize: 1 });
    try {
      for (const ddl of probe.functions) await sql.raw(ddl).execute(db);
    } finally {
      await close();
    }
    // the database's own functions, which the guard refuses until they are allowed (deny by default)
    const allow = ['--sql-allow-function', 'leave_state,peek_state'];
    mcp = await startHttpServer(dbUrl, ['--sql', ...allow, '--pool-size', String(POOL)]);
    client = await connectClient('http', 'modern', { dbUrl, endpoint: mcp.endpoint });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await mcp?.stop();
  });

  const sqlRows = async (text: string) => {
    const out = await callJson(client, 'sql', { sql: text });
    expect(out.isError, JSON.stringify(out.data)).toBe(false);
    return (out.data as { rows: Record<string, unknown>[] }).rows;
  };

  it(`what one call leaves, no later call sees, on any of ${POOL} connections (20 rounds)`, async () => {
    const seen: string[] = [];
    const connections = new Set<string>();
    for (let round = 0; round < 20; round++) {
      // Every connection of the pool is left dirty, as far as the calls spread over them...
      const left = await Promise.all(
        Array.from({ length: POOL }, () => sqlRows(`select leave_state() as s, ${probe.connectionId} as c`)),
      );
      for (const [row] of left) connections.add(String(row!.c));
      // ... and then looked at, by twice as many calls.
      const peeks = await Promise.all(
        Array.from({ length: POOL * 2 }, () => sqlRows(`select peek_state() as p, ${probe.connectionId} as c`)),
      );
      for (const [row] of peeks) {
        seen.push(String(row!.p));
        connections.add(String(row!.c));
      }
    }
    expect(connections.size, 'the calls reached several connections').toBeGreaterThan(1);
    expect(seen.filter((p) => p !== probe.clean)).toEqual([]);
    expect(seen).toHaveLength(20 * POOL * 2);
  }, 60_000);

  it('the other tools still see the session settings the server made (UTC) after sql calls', async () => {
    await sqlRows('select leave_state() as s');
    for (let i = 0; i < POOL * 2; i++) expect(String((await sqlRows(probe.zone))[0]!.z)).toMatch(/^(\+00:00|UTC)$/);
  }, 30_000);
});
