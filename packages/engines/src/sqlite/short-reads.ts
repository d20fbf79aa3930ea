import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, QueryResult } from 'kysely';
import type { Statements } from '../calls.js';
import type { Table } from '../catalog.js';
import type { AnyDb, Comparison, ShortReads } from '../engine.js';
import { startSession } from './pragmas.js';
import { cacheStatements } from './statement-cache.js';

/** How often the schema version is looked at (see `#judge`). */
const SCHEMA_CHECK_MS = 1000;

/**
 * The rows a read that its plan does not prove short may visit here (each counted by the
 * statement's own where clause, see `withVisitBudget`) before it stops and a worker thread runs
 * it instead: about 0.1 ms of SQLite's work, what the hand-off to a thread and back costs.
 */
export const VISIT_BUDGET = 1000;
/** After a read of a statement stops at the budget, its next reads go straight to the pool, this many. */
const AFTER_OVERRUN = 32;
/** The function that counts the rows a read visits (see `withVisitBudget`); this connection's own. */
const VISIT = 'mcp_db_bench_visit';
/** What the counting function throws at the budget: the read stops, and goes to the pool. */
const OVER_BUDGET = new Error('past the row budget of a read on the main thread');

/** How a statement is read here: as proven short, or counted against the budget (then `skip` calls go to the pool). */
interface Verdict {
  sql: string;
  budgeted: boolean;
  skip: number;
}

/**
 * Short reads on the calling thread. Statements run on worker threads (worker-pool.ts) so that a
 * long one cannot stall the server, but a read that SQLite answers by visiting only the rows it
 * returns costs no more here than rendering its answer does anyway, and running it here skips
 * the hand-off to a thread and back, the largest cost of such a read. SQLite's own plan is the
 * proof (see `provesShort`), judged once per statement text and schema version, and the
 * statement is pinned to the index that plan uses.
 *
 * The connection is read-only, runs only statements that return rows (`all`), and never waits
 * for a lock: a read that finds the file locked (a rollback-journal database while a write
 * commits) goes to the worker pool instead, as does every read that is not proven short.
 *
 * The reads that arrive in one turn of the event loop run together, in one read transaction.
 * Alone, each read is a transaction of its own, and starting one costs SQLite eight system calls
 * (locks, the journal's and the change counter's checks): more than the read itself. Together
 * they share one start; each still sees every write committed before its call arrived.
 */
export class SqliteShortReads implements ShortReads {
  /** per statement text: how to run it here instead, or null when it runs on the pool */
  readonly #verdicts = new Map<string, Verdict | null>();
  /** rows the budgeted read running now has visited */
  #visits = 0;
  readonly #schemaVersion: BetterSqlite3.Statement;
  #verdictsOf = -1;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #stat4 = false;
  /** the reads waiting for this turn's transaction */
  #batch: Pending[] = [];
  readonly #begin: BetterSqlite3.Statement;
  readonly #commit: BetterSqlite3.Statement;

  /** `database`: opened read-only, statements cached, `busy_timeout = 0` (see `open`); `pool`: the worker threads. */
  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly pool: AnyDb,
    /** only told of the reads run here (the pool's statements are its own) */
    private readonly statements?: Statements,
  ) {
    if (!database.readonly) throw new Error('SQLite short reads need a connection opened read-only');
    database.function(VISIT, { deterministic: false, directOnly: true }, () => {
      if (++this.#visits > VISIT_BUDGET) throw OVER_BUDGET;
      return 1;
    });
    this.#schemaVersion = database.prepare('pragma schema_version').pluck();
    this.#begin = database.prepare('begin');
    this.#commit = database.prepare('commit');
  }

  /** Short reads of the file at `path`, on a connection of their own, falling back to `pool`. */
  static open(Database: typeof BetterSqlite3, path: string, pool: AnyDb, statements?: Statements): SqliteShortReads {
    const database = startSession(new Database(path, { fileMustExist: true, readonly: true }));
    database.pragma('busy_timeout = 0');
    return new SqliteShortReads(cacheStatements(database), pool, statements);
  }

  async execute<R>(
    query: CompiledQuery,
    table: Table,
    where: readonly Comparison[] | undefined,
  ): Promise<QueryResult<R>> {
    let here: Verdict | null = null;
    try {
      here = this.#judge(query, table, where);
    } catch {
      // Not judged (the file locked while planning): the pool runs it.
    }
    if (here?.budgeted && here.skip > 0) {
      here.skip--;
      here = null;
    }
    const verdict = here;
    const enqueue = () => this.#enqueue(verdict!, query.parameters);
    const rows =
      verdict === null
        ? undefined
        : await (this.statements ? this.statements.observe(verdict.sql, enqueue) : enqueue());
    // A locked file (SQLITE_BUSY), or anything else: the pool runs the read as written, and its
    // answer, or its error, is the one that counts.
    return rows ? { rows: rows as R[] } : await this.pool.executeQuery<R>(query);
  }

  close(): void {
    this.database.close();
  }

  /** The verdict's rows once this turn's reads have run; undefined when it failed here (or went past its budget). */
  #enqueue(verdict: Verdict, parameters: readonly unknown[]): Promise<unknown[] | undefined> {
    return new Promise((resolve) => {
      // setImmediate, not a microtask: the requests read from other sockets in this turn join in.
      if (this.#batch.length === 0) setImmediate(this.#run);
      this.#batch.push({ verdict, parameters, resolve });
    });
  }

  readonly #run = (): void => {
    const batch = this.#batch;
    this.#batch = [];
    const together = batch.length > 1 && this.#try(() => this.#begin.run()) !== undefined;
    for (const read of batch) read.resolve(this.#read(read));
    if (!together) return;
    // A transaction left open would hold its lock and block every writer.
    if (this.database.inTransaction) this.#try(() => this.#commit.run());
    if (this.database.inTransaction) this.#try(() => this.database.exec('rollback'));
  };

  #try<T>(step: () => T): T | undefined {
    try {
      return step();
    } catch {
      return undefined;
    }
  }

  /** One read's rows; undefined when it failed here, or went past its budget (then its next reads go to the pool). */
  #read({ verdict, parameters }: Pending): unknown[] | undefined {
    this.#visits = 0;
    try {
      return this.database.prepare(verdict.sql).all(parameters as unknown[]);
    } catch (error) {
      if (error === OVER_BUDGET) verdict.skip = AFTER_OVERRUN;
      return undefined;
    }
  }

  #judge(query: CompiledQuery, table: Table, where: readonly Comparison[] | undefined): Verdict | null {
    // A new or dropped index, or statistics appearing (ANALYZE creating its tables), changes the
    // schema version, and every statement is judged again. Looked at once a second, not per call
    // (it costs a statement): a verdict that is stale for that second is still safe, because a
    // read is pinned to the index it was judged with and fails over to the pool without it.
    const now = performance.now();
    if (now - this.#checkedAt >= SCHEMA_CHECK_MS) {
      this.#checkedAt = now;
      const version = Number(this.#schemaVersion.get());
      if (version !== this.#verdictsOf) {
        this.#verdicts.clear();
        this.#verdictsOf = version;
        this.#stat4 =
          Number(
            this.database.prepare("select count(*) from sqlite_master where name = 'sqlite_stat4'").pluck().get(),
          ) !== 0;
      }
    }
    let verdict = this.#verdicts.get(query.sql);
    if (verdict === undefined) {
      verdict = this.#prove(query, table, where);
      if (this.#verdicts.size >= 512) this.#verdicts.clear();
      this.#verdicts.set(query.sql, verdict);
    }
    return verdict;
  }

  /**
   * How to read a statement here: proven short, or else counted against the budget of row visits.
   * A view is read on the pool: its own conditions and work do not show in the statement.
   */
  #prove(query: CompiledQuery, table: Table, where: readonly Comparison[] | undefined): Verdict | null {
    if (table.kind !== 'table') return null;
    const short = where && this.#proveShort(query, table, where);
    if (short) return { sql: short, budgeted: false, skip: 0 };
    const counted = withVisitBudget(query.sql, table.name);
    return counted === undefined ? null : { sql: counted, budgeted: true, skip: 0 };
  }

  /**
   * The statement proven short. It is pinned (`indexed by`) to the index its plan uses, so that
   * no later plan can differ: with STAT4 statistics SQLite plans a statement anew for the values
   * bound, and an index may be dropped; the pinned statement's plan must prove it too. A plan
   * that names no index (a search by primary key, a plain scan) cannot be pinned: it is trusted
   * without STAT4, and with it only for a full primary-key lookup, planned alike for every value.
   */
  #proveShort(query: CompiledQuery, table: Table, where: readonly Comparison[]): string | undefined {
    const plan = this.#plan(query.sql, query.parameters);
    if (!provesShort(plan, table, where)) return undefined;
    const pinned = pinIndex(query.sql, table.name, plan[0]!);
    if (pinned === undefined) return !this.#stat4 || isKeyLookup(table, where) ? query.sql : undefined;
    return provesShort(this.#plan(pinned, query.parameters), table, where) ? pinned : undefined;
  }

  #plan(sql: string, parameters: readonly unknown[]): string[] {
    return (
      this.database.prepare(`explain query plan ${sql}`).all(parameters as unknown[]) as { detail: string }[]
    ).map((step) => step.detail);
  }
}

/** A read to run here, waiting for its turn's transaction. */
interface Pending {
  verdict: Verdict;
  parameters: readonly unknown[];
  resolve: (rows: unknown[] | undefined) => void;
}

/**
 * `sql` with every row it visits counted against `VISIT_BUDGET`: the counting function comes
 * first in its where clause, and, having no column, first among the terms SQLite tests on an
 * index's entries too, so it counts each entry a search walks, whether the rest of the clause
 * keeps the row or not, and each row of a scan or of a sort's input. Undefined when the text is
 * not the one the read tools compile (`from "table" as "t"`, once, then `where` or nothing of it;
 * see query/select.ts), whose where clause is one term (a comparison, or a group in parentheses).
 */
export function withVisitBudget(sql: string, tableName: string): string | undefined {
  const from = `from ${quoteId(tableName)} as "t"`;
  const at = sql.indexOf(from);
  if (at < 0 || sql.indexOf(from, at + 1) >= 0) return undefined;
  const end = at + from.length;
  if (sql.startsWith(' where ', end)) return `${sql.slice(0, end)} where ${VISIT}() and ${sql.slice(end + 7)}`;
  if (/^( order by | limit |$)/.test(sql.slice(end, end + 10)))
    return `${sql.slice(0, end)} where ${VISIT}()${sql.slice(end)}`;
  return undefined;
}

/**
 * `sql` with its table pinned to the index that `step` (a plan's one step) uses, or undefined
 * when the step names no index or the text is not the one the read tools compile
 * (`from "table" as "t"`, once; see query/select.ts).
 */
export function pinIndex(sql: string, tableName: string, step: string): string | undefined {
  const index = parseStep(step)?.index;
  const from = `from ${quoteId(tableName)} as "t"`;
  const at = sql.indexOf(from);
  if (index === undefined || at < 0 || sql.indexOf(from, at + 1) >= 0) return undefined;
  const end = at + from.length;
  return `${sql.slice(0, end)} indexed by ${quoteId(index)}${sql.slice(end)}`;
}

function quoteId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Whether a plan (the `detail` lines of `explain query plan`) visits no row that the statement
 * does not return: a single step (no temporary B-tree to sort, no second table, no subquery),
 * which is either a search that uses every comparison of the where clause as a bound of its
 * index, so no row it visits fails a condition, or a scan with no where clause at all. A view
 * is never short: its own conditions do not show in its plan.
 */
export function provesShort(plan: readonly string[], table: Table, where: readonly Comparison[]): boolean {
  if (table.kind !== 'table' || plan.length !== 1) return false;
  const step = parseStep(plan[0]!);
  if (!step) return false;
  if (!step.search) return where.length === 0 && step.bounds === undefined;
  const bounds = step.bounds ?? [];
  // `rowid` is the integer primary key; a column of that name would make it ambiguous.
  const rowid = table.primaryKey.length === 1 && !table.column.has('rowid') ? table.primaryKey[0] : undefined;
  for (const { column, op } of where) {
    const wanted = `${column}${op[0]}?`;
    const i = bounds.findIndex((b) => b === wanted || (rowid === column && b === `rowid${op[0]}?`));
    if (i < 0) return false;
    bounds.splice(i, 1);
  }
  return true;
}

/**
 * One step of a plan as `explain query plan` prints it: `SEARCH t USING INDEX ix (a=? AND
 * rowid>?)`, `SEARCH t USING INTEGER PRIMARY KEY (rowid=?)`, `SCAN t USING COVERING INDEX ix`,
 * `SCAN t`. `index`: the index it names; `bounds`: as printed, `a=?`, `a>?` (also for >=),
 * `rowid<?` (also for <=).
 */
function parseStep(detail: string): { search: boolean; index?: string; bounds?: string[] } | undefined {
  const step = /^(SEARCH|SCAN) \S+(?: USING (?:(?:COVERING )?INDEX (\S+)|[A-Z ]+?))?(?: \((.*)\))?$/.exec(detail);
  if (!step) return undefined;
  return { search: step[1] === 'SEARCH', index: step[2], bounds: step[3]?.split(' AND ') };
}

/** An equality on every primary key column: one row, by the same plan whatever the values. */
function isKeyLookup(table: Table, where: readonly Comparison[]): boolean {
  const pk = table.primaryKey;
  return (
    pk.length > 0 && where.length === pk.length && pk.every((c) => where.some((w) => w.column === c && w.op === '='))
  );
}
