import { ToolError } from '@mcp-db-bench/contract';
import type { AnyDb } from '../engine.js';
import { refuse, type SqlPolicy } from '../sql-guard.js';
import { denial } from './deny.js';
import { type GuardCatalog, readGuardCatalog } from './guard-catalog.js';
import { type Parsed, ParserThread } from './parse.js';

/** How long the catalog's answers are trusted before they are read again (an extension may be added). */
const CATALOG_TTL_MS = 60_000;
/** Statements known to pass, per pool: an agent repeats its statements, and each parse costs a fraction of a millisecond or more. */
const PASSED_LIMIT = 1024;

interface PoolState {
  catalog: Promise<GuardCatalog>;
  readAt: number;
  /** the policy the passed statements passed under */
  policy: SqlPolicy;
  passed: Set<string>;
}
const pools = new WeakMap<AnyDb, PoolState>();

const parser = new ParserThread();

function state(db: AnyDb, policy: SqlPolicy): PoolState {
  let s = pools.get(db);
  if (!s || Date.now() - s.readAt > CATALOG_TTL_MS) {
    const catalog = readGuardCatalog(db);
    s = { catalog, readAt: Date.now(), policy, passed: new Set() };
    pools.set(db, s);
    // A failed read is not kept: the next call reads again.
    catalog.catch(() => pools.get(db) === s && pools.delete(db));
  } else if (s.policy !== policy) {
    s.policy = policy;
    s.passed.clear();
  }
  return s;
}

/** Refuses what is not one query that only reads. */
function refuseShape(parsed: Parsed): void {
  if (parsed.error !== undefined) throw new ToolError('database_error', `sql: ${parsed.error}`);
  if (parsed.kinds.length !== 1)
    refuse(parsed.kinds.length === 0 ? 'an empty statement' : 'more than one statement', 'one query runs per call');
  const kind = parsed.kinds[0]!;
  if (kind !== 'SelectStmt') refuse(kind.replace(/Stmt$/, '').toUpperCase(), 'only a query runs here');
  for (const write of parsed.writes) {
    if (write === 'intoClause') refuse('SELECT ... INTO', 'it creates a table');
    refuse(write.replace(/Stmt$/, '').toUpperCase(), 'it writes');
  }
}

/** Refuses what PostgreSQL keeps from PUBLIC: its privileged functions' names anywhere, its hidden catalogs. */
function refusePrivileged(parsed: Parsed, catalog: GuardCatalog): void {
  for (const r of parsed.relations)
    if ((r.schema === undefined || r.schema === 'pg_catalog') && catalog.hidden.has(r.name))
      refuse(r.name, 'PostgreSQL keeps it from PUBLIC: it is for administrators');
  // Every name, not only called ones: a column or table that shares such a name is refused too, which costs nothing in practice.
  for (const name of parsed.names)
    if (catalog.privileged.has(name)) refuse(name, 'PostgreSQL keeps it from PUBLIC: it is for administrators');
}

/**
 * Refuses a statement that could reach past the rows of the database or past the call. PostgreSQL's
 * own parser reads the statement (on its own thread, see parse.ts), so every name in it is found
 * however it is quoted, escaped (`U&"\0070g_read_file"`) or commented. It must parse as one query
 * that only reads, alone: text that parses only inside the runner's `select * from (...)` is
 * refused too. Then deny by default (deny.ts): every function it calls, directly or through an
 * operator or a cast, must be a known-safe built-in (safe-functions.ts) or allowed by `policy`.
 */
export async function sqlGuard(db: AnyDb, text: string, policy: SqlPolicy): Promise<void> {
  const s = state(db, policy);
  if (s.passed.has(text)) return;
  const [parsed, catalog] = await Promise.all([parser.parse(text), s.catalog]);
  refuseShape(parsed);
  const why = denial(parsed, catalog, policy);
  if (why !== undefined) throw new ToolError('invalid_argument', `sql: ${why}`);
  refusePrivileged(parsed, catalog);
  if (s.passed.size >= PASSED_LIMIT) s.passed.clear();
  s.passed.add(text);
}
