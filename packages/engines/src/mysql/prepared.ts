import { ToolError } from '@mcp-db-bench/contract';
import { CompiledQuery, type MysqlPool, type MysqlPoolConnection } from 'kysely';
import type { TypedParameter } from 'mysql2';
import { BareLiteral } from './types.js';

/** Parameter lists of statements that go through the server's prepared statements (see preparedStatements). */
const PREPARED = new WeakSet<readonly unknown[]>();

/**
 * A statement whose values the server binds itself: mysql2's `query` writes values into the text
 * (its own scanner decides where each `?` is), this one sends the text alone (COM_STMT_PREPARE)
 * and the values beside it (COM_STMT_EXECUTE, the binary protocol), so no value is ever read as SQL.
 */
export function preparedStatement(text: string, parameters: readonly unknown[]): CompiledQuery {
  const values = [...parameters];
  PREPARED.add(values);
  return CompiledQuery.raw(text, values);
}

const INT32 = 2 ** 31;
const INT64 = 2n ** 63n;
const DECIMAL_TEXT = /^-?\d+\.\d+$/;

/**
 * A value as the type its SQL literal has, so a statement means what it meant when mysql2 wrote
 * the value into the text: an integer as an integer (`:n / 3` is a decimal, `limit :n` works), a
 * number with a fraction as DECIMAL (`price = :p` compares exactly), a big integer past 64 bits as
 * DECIMAL; text, bytes and NULL as they are.
 */
function typed(value: unknown, types: TypedParameter): unknown {
  if (value instanceof BareLiteral) return types.NEWDECIMAL(value.text);
  if (typeof value === 'bigint') {
    if (value >= -INT64 && value < INT64) return types.LONGLONG(value);
    return value >= 0n && value < 2n * INT64 ? types.LONGLONG.unsigned(value) : types.NEWDECIMAL(value.toString());
  }
  if (typeof value !== 'number') return value;
  if (Number.isSafeInteger(value)) return Math.abs(value) < INT32 ? types.LONG(value) : types.LONGLONG(value);
  return DECIMAL_TEXT.test(String(value)) ? types.NEWDECIMAL(String(value)) : value;
}

type Query = MysqlPoolConnection['query'];
type Callback = (error: unknown, rows?: unknown) => void;
interface Statement {
  parameters: unknown[];
  execute(values: unknown[], callback: Callback): void;
}
interface Preparing {
  prepare(text: string, callback: (error: Error | null, statement: Statement) => void): void;
}

/**
 * Prepares `text`, checks the server's count of markers against the values, and executes. The
 * statement is not closed here: the runner resets the session after every call
 * (COM_RESET_CONNECTION drops the server's prepared statements, and mysql2 forgets its own), so
 * nothing of it stays on the connection and the server's count (max_prepared_stmt_count) never
 * grows with callers' texts; and a close sent to a connection that died meanwhile (a KILL, an
 * answer past its budget, a server shutting down) would be an unhandled error.
 */
function runPrepared(
  connection: Preparing,
  text: string,
  values: readonly unknown[],
  types: TypedParameter,
  done: Callback,
) {
  connection.prepare(text, (error, statement) => {
    if (error) return done(error);
    const markers = statement.parameters.length;
    if (markers !== values.length) {
      const message = `sql: the server reads ${markers} parameter markers (?) in the statement for ${values.length} values`;
      return done(new ToolError('invalid_argument', message));
    }
    statement.execute(
      values.map((v) => typed(v, types)),
      done,
    );
  });
}

/**
 * Gives each pooled connection one more kind of statement: those made by preparedStatement run
 * as the server's prepared statements. kysely's connection hides the driver's, so the request
 * travels as a statement whose parameter list marks it.
 */
export function preparedStatements(pool: MysqlPool, types: TypedParameter): MysqlPool {
  const taught = new WeakSet<MysqlPoolConnection>();
  const teach = (connection: MysqlPoolConnection) => {
    const query: Query = connection.query.bind(connection);
    connection.query = ((text: string, parameters: unknown, callback?: Parameters<Query>[2]) => {
      if (!Array.isArray(parameters) || !PREPARED.has(parameters)) return query(text, parameters, callback);
      runPrepared(connection as unknown as Preparing, text, parameters, types, (error, rows) =>
        callback?.(error as never, rows as never),
      );
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
