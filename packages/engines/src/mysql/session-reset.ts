import type { MysqlPool, MysqlPoolConnection } from 'kysely';

/**
 * A statement's parameters that stand for "reset this session" (see resettableSessions). An
 * object's identity, not text: no statement a caller writes can be taken for it.
 */
export const RESET_SESSION: readonly unknown[] = Object.freeze([]);

type Query = MysqlPoolConnection['query'];
type Callback = Parameters<Query>[2];

/**
 * Gives each pooled connection one more statement: the one whose parameters are RESET_SESSION
 * resets the session with COM_RESET_CONNECTION (the transaction, user variables, LAST_INSERT_ID,
 * temporary tables, named locks, prepared statements, session settings) and then applies
 * `settings()` again, the session settings made when the connection opened. kysely's connection
 * hides the driver's, so the request travels as a statement. A connection whose reset fails is
 * closed: whatever it holds goes with it.
 */
export function resettableSessions(pool: MysqlPool, settings: () => string): MysqlPool {
  const taught = new WeakSet<MysqlPoolConnection>();
  const teach = (connection: MysqlPoolConnection) => {
    const query: Query = connection.query.bind(connection);
    const reset = connection as unknown as { reset(callback: (error: unknown) => void): void };
    connection.query = ((sql: string, parameters: unknown, callback?: Callback) => {
      if (parameters !== RESET_SESSION) return query(sql, parameters, callback);
      const done = (error: unknown) => {
        if (error) connection.destroy();
        callback?.(error, [] as never);
      };
      reset.reset((error) => (error ? done(error) : query(settings(), [], done)));
      return undefined as never;
    }) as Query;
    taught.add(connection);
  };
  return {
    getConnection(callback) {
      pool.getConnection((error, connection) => {
        if (connection && !taught.has(connection)) teach(connection);
        callback(error, connection);
      });
    },
    end: (callback) => pool.end(callback),
  };
}
