import {
  type Dialect,
  type DialectAdapter,
  type Driver,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';

/** SQLite's SQL and introspection over a driver of ours (compile-only, worker threads). */
export function sqliteDialect(
  createDriver: () => Driver,
  createAdapter: () => DialectAdapter = () => new SqliteAdapter(),
): Dialect {
  return {
    createAdapter,
    createDriver,
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
