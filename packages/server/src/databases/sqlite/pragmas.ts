/** Every connection's settings, on this thread or another. */
export const SESSION_PRAGMAS = [
  'busy_timeout = 5000',
  'foreign_keys = ON',
  // like is case-sensitive, as = is under SQLite's BINARY collation and like is on PostgreSQL
  'case_sensitive_like = ON',
];
