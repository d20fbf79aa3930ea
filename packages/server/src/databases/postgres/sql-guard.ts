import { ToolError } from '@mcp-db-bench/contract';
import { sql } from 'kysely';
import type { AnyDb } from '../engine.js';
import { type ForbiddenNames, forbiddenReason, refuse } from '../sql-guard.js';

type PgQuery = typeof import('libpg-query');

const FILES = 'it reaches files or programs on the database host';
const LOCKS = 'session advisory locks outlive the call, which holds a pooled connection';

/**
 * Functions anyone may run that still reach past the rows of the database: locks that outlive the
 * transaction, other sessions, the server's configuration, other servers, and SQL hidden in a
 * string (which no parser sees). PostgreSQL's own judgement adds the rest (PRIVILEGED, below).
 */
export const FORBIDDEN: ForbiddenNames = {
  exact: {
    pg_terminate_backend: 'it ends other sessions, the server\'s own pooled connections included',
    pg_cancel_backend: 'it cancels other sessions\' statements',
    pg_reload_conf: 'it reloads the server\'s configuration',
    set_config: 'it changes settings of the session',
    pg_read_file: FILES,
    pg_read_binary_file: FILES,
    pg_ls_dir: FILES,
    pg_stat_file: FILES,
    pg_file_settings: 'it reads the server\'s configuration files',
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
/** Statements known to pass, per pool: an agent repeats its statements, and parsing costs ~0.2 ms. */
const PASSED_LIMIT = 1024;

interface PoolState {
  privileged: Promise<ReadonlySet<string>>;
  readAt: number;
  passed: Set<string>;
}
const pools = new WeakMap<AnyDb, PoolState>();

let parser: Promise<PgQuery> | undefined;
/** PostgreSQL's own parser (libpg-query, compiled to WebAssembly), loaded on the first sql call. */
function loadParser(): Promise<PgQuery> {
  parser ??= import('libpg-query').then(async (m) => {
    await m.loadModule();
    return m;
  });
  return parser;
}

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
 * call. PostgreSQL's own parser reads the statement, so every name in it is found however it is
 * quoted, escaped (`U&"\0070g_read_file"`) or commented; a name is refused when PostgreSQL keeps
 * a function of that name from PUBLIC or FORBIDDEN names it. It must parse as one query, alone:
 * text that parses only inside the runner's `select * from (...)` is refused too.
 */
export async function sqlGuard(db: AnyDb, text: string): Promise<void> {
  const s = state(db);
  if (s.passed.has(text)) return;
  const [pg, privileged] = await Promise.all([loadParser(), s.privileged]);
  let tree: { stmts?: { stmt?: Record<string, unknown> }[] };
  try {
    tree = pg.parseSync(text);
  } catch (error) {
    throw new ToolError('database_error', `sql: ${(error as Error).message}`);
  }
  const statements = tree.stmts ?? [];
  if (statements.length !== 1) refuse(`${statements.length === 0 ? 'an empty statement' : 'more than one statement'}`, 'one query runs per call');
  const kind = Object.keys(statements[0]!.stmt ?? {})[0] ?? 'nothing';
  if (kind !== 'SelectStmt') refuse(kind.replace(/Stmt$/, '').toUpperCase(), 'only a query runs here');
  for (const [key, name] of nodes(statements[0]!.stmt)) {
    if (key === 'intoClause') refuse('SELECT ... INTO', 'it creates a table');
    if (key === 'InsertStmt' || key === 'UpdateStmt' || key === 'DeleteStmt' || key === 'MergeStmt') refuse(key.replace(/Stmt$/, '').toUpperCase(), 'it writes');
    if (name === undefined) continue;
    const why = forbiddenReason(FORBIDDEN, name) ?? (privileged.has(name) ? 'PostgreSQL keeps it from PUBLIC: it is for administrators' : undefined);
    if (why !== undefined) refuse(name, why);
  }
  if (s.passed.size >= PASSED_LIMIT) s.passed.clear();
  s.passed.add(text);
}

/**
 * Every node of a parse tree by its key, with the name it holds, if any: every part of every name
 * (a String node), not only the function of a call, since PostgreSQL also reads `x.f` and `(x).f`
 * as f(x) when x is a row; and the relations read, since views such as pg_hba_file_rules show
 * what a privileged function reads. A column or table that shares a forbidden name is refused
 * too, which costs nothing in practice.
 */
function* nodes(node: unknown): Generator<[string, string | undefined]> {
  if (Array.isArray(node)) {
    for (const item of node) yield* nodes(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    const name = key === 'String' ? (value as { sval?: string }).sval : key === 'RangeVar' ? (value as { relname?: string }).relname : undefined;
    yield [key, name];
    yield* nodes(value);
  }
}
