import { type ErrorCode, ToolError } from '@mcp-db-bench/contract';
import { poolWaitExceeded } from '../pool-wait.js';
import { SchemaChangedError } from '../schema-changed.js';

/** Socket-level failures Node reports while opening or using a connection. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * pg raises these itself, without a code, when a client or the pool is unusable. They are
 * fixed strings of the driver (not server text, which may be localised), so matching them is
 * as stable as matching a code.
 */
const CLIENT_GONE = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/** pg-pool's error for a wait in its queue past connectionTimeoutMillis (opening late reads "Connection terminated"). */
const POOL_WAIT_EXCEEDED = 'timeout exceeded when trying to connect';

/** SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) by tool error. */
const SQLSTATE: Readonly<Record<string, ErrorCode>> = {
  '57014': 'timeout', // query_canceled: statement_timeout or a cancel request
  '25006': 'read_only', // read_only_sql_transaction
  '40P01': 'conflict', // deadlock_detected: this transaction was rolled back
  '40001': 'conflict', // serialization_failure: this transaction was rolled back
  '22P02': 'type_mismatch', // invalid_text_representation
  '22003': 'type_mismatch', // numeric_value_out_of_range
  '22007': 'type_mismatch', // invalid_datetime_format
  '22008': 'type_mismatch', // datetime_field_overflow
  '22001': 'type_mismatch', // string_data_right_truncation
  '22021': 'type_mismatch', // character_not_in_repertoire
  '22P05': 'type_mismatch', // untranslatable_character
  '42804': 'type_mismatch', // datatype_mismatch
  '42883': 'type_mismatch', // undefined_function: an operator applied to the wrong types
};

/** Maps a pg error to a tool error by its SQLSTATE or Node error code. */
export function mapError(error: unknown): ToolError | undefined {
  if (error instanceof ToolError) return error;
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const message = error.message;

  if (typeof code === 'string' && NETWORK_CODES.has(code)) return unavailable(error, message);
  if (typeof code !== 'string' || !isSqlState(code)) {
    if (message === POOL_WAIT_EXCEEDED) return poolWaitExceeded(error);
    if (CLIENT_GONE.some((text) => message.startsWith(text))) return unavailable(error, message);
    return undefined;
  }

  const cls = code.slice(0, 2);
  // 08 connection exception, 28 bad credentials, 53300 too many connections,
  // 57P01-03 server shutting down or starting
  if (cls === '28') return loginRefused(error, message);
  if (code === '3D000') return missingDatabase(error, message);
  // protocol_violation, as the server answers a Bind whose values do not fit the statement (more
  // than 65,535, or another count than it has): an ERROR that leaves the session usable, not a lost one
  if (code === '08P01') return new ToolError('database_error', message, { cause: error });
  if (cls === '08' || code === '53300' || /^57P0[1-3]$/.test(code)) return unavailable(error, message);
  if (code === '42P01' || code === '42703')
    return new SchemaChangedError(`${message} (the database schema may have changed: refresh the catalog)`, {
      cause: error,
    });
  const mapped = SQLSTATE[code];
  if (mapped === 'timeout')
    return new ToolError('timeout', `The statement was cancelled: ${message}`, { cause: error });
  return new ToolError(mapped ?? 'database_error', message, { cause: error });
}

function isSqlState(code: string): boolean {
  return /^[0-9A-Z]{5}$/.test(code);
}

function unavailable(error: Error, detail: string): ToolError {
  return new ToolError(
    'database_unavailable',
    `Cannot reach the PostgreSQL server: ${detail || 'connection failed'}. Check that it is running and that the connection URL (host, port, user, password, database) is right.`,
    { cause: error },
  );
}

/** The server answered but refused the credentials: say so, rather than "cannot reach". */
function loginRefused(error: Error, detail: string): ToolError {
  return new ToolError(
    'database_unavailable',
    `The PostgreSQL server refused the login: ${detail}. Check the user and password in the connection URL.`,
    { cause: error },
  );
}

/** The server answered, but the URL's database is not there: say how to make it. */
function missingDatabase(error: Error, detail: string): ToolError {
  // the name from the server's words, so the command can be pasted as it is
  const name = /database "([^"]+)"/.exec(detail)?.[1] ?? 'NAME';
  return new ToolError(
    'database_unavailable',
    `The PostgreSQL server has no such database: ${detail}. Create it (createdb ${name}, or CREATE DATABASE "${name}" as a user allowed to) or name an existing one in the connection URL.`,
    { cause: error },
  );
}
