import type BetterSqlite3 from 'better-sqlite3';

/** Every connection's settings, on this thread or another. */
export const SESSION_PRAGMAS = [
  'busy_timeout = 5000',
  'foreign_keys = ON',
  // like is case-sensitive, as = is under SQLite's BINARY collation and like is on PostgreSQL
  'case_sensitive_like = ON',
];

/** A connection on this thread, set up as every other (worker.ts does the same with its options). */
export function startSession(database: BetterSqlite3.Database): BetterSqlite3.Database {
  // Integers arrive as BigInt so values past 2^53 survive; shared code renders them.
  database.defaultSafeIntegers(true);
  for (const pragma of SESSION_PRAGMAS) database.pragma(pragma);
  return database;
}
