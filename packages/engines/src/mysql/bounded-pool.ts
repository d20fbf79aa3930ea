import type { MysqlPool } from 'kysely';
import { poolWaitExceeded } from '../pool-wait.js';

/**
 * mysql2 queues a request for a pooled connection with no time limit (`queueLimit` bounds the
 * queue's length, not the wait). This bounds each wait: past it the caller gets a tool error,
 * and a connection that turns up later goes straight back to the pool.
 */
export function boundedWait(pool: MysqlPool, waitMs: number): MysqlPool {
  return {
    getConnection(callback) {
      let waiting = true;
      const timer = setTimeout(() => {
        waiting = false;
        callback(poolWaitExceeded(), undefined as never);
      }, waitMs);
      pool.getConnection((error, connection) => {
        if (!waiting) return connection?.release();
        waiting = false;
        clearTimeout(timer);
        callback(error, connection);
      });
    },
    end: (callback) => pool.end(callback),
  };
}
