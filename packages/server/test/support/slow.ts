import type { SqlFamily } from '@mcp-db-bench/engines';

/**
 * Statements that run for many seconds, per SQL family, and how to find ours in the engine's
 * process list (SQLite has none: caller-written SQL runs in a child process of the server).
 */
export interface Slow {
  /** for the sql tool: runs 30 s (SQLite: far longer) */
  statement: string;
  /**
   * a view whose every read runs 30 s, for the read tools; on SQLite half a second or so of counting,
   * since a read on a worker thread cannot be interrupted (see sqlite/worker-pool.ts)
   */
  view: string;
  /** how many of either the server runs now, seen from another session */
  running?: string;
}

export const SLOW: Record<SqlFamily, Slow> = {
  postgres: {
    statement: 'select pg_sleep(30) as slept',
    view: 'create view slow_view as select 1 as id, length(pg_sleep(30)::text) as slept',
    running:
      "select count(*) as n from pg_stat_activity where (query like '%pg_sleep(30)%' or query like '%slow_view%') and state = 'active' and pid <> pg_backend_pid()",
  },
  mysql: {
    statement: 'select sleep(30) as slept',
    view: 'create view slow_view as select 1 as id, sleep(30) as slept',
    running:
      "select count(*) as n from information_schema.processlist where (info like '%sleep(30)%' or info like '%slow_view%') and id <> connection_id()",
  },
  sqlite: {
    statement: 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 300000000) select count(*) as n from c',
    view: 'create view slow_view as with recursive c(x) as (select 1 union all select x + 1 from c where x < 500000) select count(*) as n from c',
  },
};
