import { ToolError } from '@mcp-db-bench/contract';
import { sql } from 'kysely';
import type { AnyDb } from '../engine.js';
import { type ForbiddenNames, forbiddenReason, refuse } from '../sql-guard.js';
import { ParserThread } from './parse.js';

const FILES = 'it reaches files or programs on the database host';
const LOCKS = 'session advisory locks outlive the call, which holds a pooled connection';

/**
 * Functions anyone may run that still reach past the rows of the database: locks that outlive the
 * transaction, other sessions, the server's configuration, other servers, and SQL hidden in a
 * string (which no parser sees). PostgreSQL's own judgement adds the rest (PRIVILEGED, below).
 */
const FORBIDDEN: ForbiddenNames = {
  exact: {
    pg_terminate_backend: "it ends other sessions, the server's own pooled connections included",
    pg_cancel_backend: "it cancels other sessions' statements",
    pg_reload_conf: "it reloads the server's configuration",
    set_config: 'it changes settings of the session',
    // the random generator's state is the session's, and a rollback keeps it
    setseed: "it seeds random() for the session: the next caller's values would be predictable",
    pg_read_file: FILES,
    pg_read_binary_file: FILES,
    pg_ls_dir: FILES,
    pg_stat_file: FILES,
    pg_file_settings: "it reads the server's configuration files",
    lo_import: FILES,
    lo_export: FILES,
    query_to_xml: 'it runs SQL given as a string',
    query_to_xml_and_xmlschema: 'it runs SQL given as a string',
    query_to_xmlschema: 'it runs SQL given as a string',
    ts_stat: 'it runs SQL given as a string',
    ts_rewrite: 'it can run SQL given as a string',
    // tablefunc
    crosstab: 'it runs SQL given as a string',
    connectby: 'it builds SQL from its arguments',
  },
  prefixes: {
    pg_advisory_: LOCKS,
    pg_try_advisory_: LOCKS,
    // dblink's functions run SQL on another server (or this one, as another session)
    dblink: 'it runs SQL on another connection',
    // replication slots and origins outlive the transaction and keep WAL on disk
    pg_create_: 'it creates server state that outlives the call',
    pg_drop_replication_slot: 'it drops server state',
    pg_replication_: 'it changes replication state',
    pg_logical_: 'it reads or writes the WAL',
    pg_copy_: 'it creates server state that outlives the call',
  },
};

/**
 * Functions that PostgreSQL itself keeps from PUBLIC (EXECUTE revoked in pg_proc: the server-file
 * functions, pg_reload_conf, backups, WAL control, statistics resets ...), built in or from an
 * extension. A superuser or a member of pg_read_server_files may run them, and the sql tool must
 * not. The database's own functions are left to their owner's grants.
 */
const PRIVILEGED = sql<{ proname: string }>`
  select distinct p.proname from pg_catalog.pg_proc p
  where not has_function_privilege('public', p.oid, 'execute')
    and (p.pronamespace = 'pg_catalog'::regnamespace
      or exists (select from pg_catalog.pg_depend d
                 where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'))`;

/** How long the privileged names are trusted before they are read again (an extension may be added). */
const CATALOG_TTL_MS = 60_000;
/** Statements known to pass, per pool: an agent repeats its statements, and each parse costs a fraction of a millisecond or more. */
const PASSED_LIMIT = 1024;

interface PoolState {
  privileged: Promise<ReadonlySet<string>>;
  readAt: number;
  passed: Set<string>;
}
const pools = new WeakMap<AnyDb, PoolState>();

const parser = new ParserThread();

function state(db: AnyDb): PoolState {
  let s = pools.get(db);
  if (!s || Date.now() - s.readAt > CATALOG_TTL_MS) {
    const privileged = PRIVILEGED.execute(db).then(({ rows }) => new Set(rows.map((r) => r.proname)));
    s = { privileged, readAt: Date.now(), passed: new Set() };
    pools.set(db, s);
    // A failed read is not kept: the next call reads again.
    privileged.catch(() => pools.get(db) === s && pools.delete(db));
  }
  return s;
}

/**
 * Refuses a statement that `begin read only` would let reach outside the database or past the
 * call. PostgreSQL's own parser reads the statement (on its own thread, see parse.ts), so every
 * name in it is found however it is quoted, escaped (`U&"\0070g_read_file"`) or commented; a name
 * is refused when PostgreSQL keeps a function of that name from PUBLIC or FORBIDDEN names it. It
 * must parse as one query, alone: text that parses only inside the runner's `select * from (...)`
 * is refused too.
 */
export async function sqlGuard(db: AnyDb, text: string): Promise<void> {
  const s = state(db);
  if (s.passed.has(text)) return;
  const [parsed, privileged] = await Promise.all([parser.parse(text), s.privileged]);
  if (parsed.error !== undefined) throw new ToolError('database_error', `sql: ${parsed.error}`);
  if (parsed.kinds.length !== 1)
    refuse(parsed.kinds.length === 0 ? 'an empty statement' : 'more than one statement', 'one query runs per call');
  const kind = parsed.kinds[0]!;
  if (kind !== 'SelectStmt') refuse(kind.replace(/Stmt$/, '').toUpperCase(), 'only a query runs here');
  for (const write of parsed.writes) {
    if (write === 'intoClause') refuse('SELECT ... INTO', 'it creates a table');
    refuse(write.replace(/Stmt$/, '').toUpperCase(), 'it writes');
  }
  // Every name, not only called ones: a column or table that shares a forbidden name is refused too, which costs nothing in practice.
  for (const name of parsed.names) {
    const why =
      forbiddenReason(FORBIDDEN, name) ??
      (privileged.has(name) ? 'PostgreSQL keeps it from PUBLIC: it is for administrators' : undefined);
    if (why !== undefined) refuse(name, why);
  }
  if (s.passed.size >= PASSED_LIMIT) s.passed.clear();
  s.passed.add(text);
}
