import type BetterSqlite3 from 'better-sqlite3';

/**
 * Makes `database.prepare` reuse statements by SQL text (on this thread: the in-process path
 * and short reads; worker threads keep their own, see worker.ts). Kysely's SQLite driver prepares every
 * query afresh, which was the largest single cost of a `get` on SQLite; a tool's queries have a
 * few shapes (values are bound parameters), so a small cache serves nearly every call.
 * better-sqlite3 is synchronous, so a statement is never in use twice at once, except while an
 * iterator is open on it: a busy statement is not reused.
 */
export function cacheStatements(database: BetterSqlite3.Database, size = 256): BetterSqlite3.Database {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, BetterSqlite3.Statement>();
  database.prepare = ((source: string) => {
    const cached = cache.get(source);
    if (cached && !cached.busy) return cached;
    const statement = prepare(source);
    if (!cached) {
      // Oldest first out: a bound, not an LRU; the hot shapes come back at once.
      if (cache.size >= size) cache.delete(cache.keys().next().value!);
      cache.set(source, statement);
    }
    return statement;
  }) as BetterSqlite3.Database['prepare'];
  return database;
}
