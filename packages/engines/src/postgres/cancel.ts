import { connect } from 'node:net';
import type pg from 'pg';
import { abandoned, type Statements } from '../calls.js';

/** How long a cancel request may take to reach the server before it is given up. */
const CANCEL_WAIT_MS = 2_000;

/** The protocol's code for a cancel request (in place of a protocol version). */
const CANCEL_REQUEST_CODE = 80877102;

/** What pg keeps of a session that a cancel request needs (not in its typings). */
interface Session {
  processID: number;
  secretKey: number;
  host: string;
  port: number;
}

/**
 * PostgreSQL's own cancel request for whatever `client`'s backend runs: a new connection that
 * carries the backend's process id and secret key, and no login, so it works even when every
 * connection slot is taken. The server signals the backend, then closes the connection: that
 * close is when this settles (or after CANCEL_WAIT_MS, or on an error). A backend that is idle
 * by then ignores the signal.
 */
export function cancelRequest(client: pg.ClientBase): Promise<void> {
  const { processID, secretKey, host, port } = client as unknown as Session;
  return new Promise((resolve) => {
    const message = Buffer.alloc(16);
    message.writeInt32BE(16, 0);
    message.writeInt32BE(CANCEL_REQUEST_CODE, 4);
    message.writeInt32BE(processID, 8);
    message.writeInt32BE(secretKey, 12);
    // A host that is a directory is a Unix socket, named as libpq names it.
    const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    socket.setTimeout(CANCEL_WAIT_MS, () => socket.destroy());
    socket.once('connect', () => socket.end(message));
    socket.once('error', () => {});
    socket.once('close', () => resolve());
  });
}

/**
 * Makes the pool's statements `statements`': each runs with the cancel request as its cancel, and a
 * call whose client has gone is handed no client. Call before the pool hands out a client.
 */
export function watchStatements(pool: pg.Pool, statements: Statements): void {
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  // kysely asks without a callback; pg's own pool.query passes one, and is not ours to stop.
  pool.connect = ((callback?: unknown) => {
    if (callback !== undefined) return connect(callback);
    statements.check();
    return statements
      .acquiring(() => connect()!)
      .then((client) => {
        if (statements.refuses()) {
          client.release();
          throw abandoned();
        }
        // pg makes a new release function for each checkout: this one is told once, for this checkout.
        const release = client.release;
        statements.held(1);
        let held = true;
        client.release = (error?: Error | boolean) => {
          if (held) statements.held(-1);
          held = false;
          return release.call(client, error);
        };
        return client;
      });
  }) as typeof pool.connect;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const cancel = () => cancelRequest(client);
    client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
      // Only kysely's form, text and values for a promise; a stream (COPY) or a callback passes through.
      if (typeof text !== 'string' || callback !== undefined || typeof values === 'function')
        return query(text, values, callback);
      return statements.run(cancel, text, () => query(text, values) as Promise<unknown>);
    }) as typeof client.query;
  });
}
