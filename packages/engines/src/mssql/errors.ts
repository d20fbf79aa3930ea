import { type ErrorCode, ToolError } from '@mcp-db-bench/contract';
import { SchemaChangedError } from '../schema-changed.js';

/** tedious ConnectionError codes: the connection could not be opened or was lost. */
const CONNECTION_CODES = new Set([
  'ESOCKET',
  'ELOGIN',
  'ETIMEOUT',
  'ECLOSE',
  'ECONNRESET',
  'EINSTLOOKUP',
  'EENCRYPT',
  'EFEDAUTH',
]);

/** Server error numbers (sys.messages) by tool error. */
const NUMBER: Readonly<Record<number, ErrorCode>> = {
  4060: 'database_unavailable', // cannot open the database requested by the login
  18456: 'database_unavailable', // login failed
  976: 'database_unavailable', // availability-group database not accessible
  978: 'database_unavailable', // availability-group replica needs read-only intent
  983: 'database_unavailable', // availability-group database not accessible
  10928: 'database_unavailable', // Azure: resource limit (sessions/workers) reached
  10929: 'database_unavailable', // Azure: resource limit reached
  17809: 'database_unavailable', // the maximum number of user connections has been reached
  40501: 'database_unavailable', // Azure: the service is busy
  40613: 'database_unavailable', // Azure: the database is not currently available
  1222: 'timeout', // lock request time out period exceeded
  3906: 'read_only', // the database is read-only
  206: 'type_mismatch', // operand type clash
  220: 'type_mismatch', // arithmetic overflow for a data type
  241: 'type_mismatch', // conversion failed converting date and/or time from a string
  242: 'type_mismatch', // out-of-range datetime value
  245: 'type_mismatch', // conversion failed converting a value to a data type
  248: 'type_mismatch', // conversion overflowed an int column
  402: 'type_mismatch', // data types are incompatible in an operator
  8114: 'type_mismatch', // error converting data type
  8115: 'type_mismatch', // arithmetic overflow converting to a data type
  8152: 'type_mismatch', // string or binary data would be truncated
  2628: 'type_mismatch', // string or binary data would be truncated (2019+ text)
  8169: 'type_mismatch', // conversion failed converting to uniqueidentifier
  13609: 'type_mismatch', // JSON text is not properly formatted
};

const SCHEMA_CHANGED = new Set([208, 207]); // invalid object name, invalid column name

/**
 * Maps a tedious or tarn error to a tool error. tedious tells its two error classes apart only
 * by class: ConnectionError (opening or losing the connection) and RequestError (a statement;
 * `number` is the server's error number, `code` is `EREQUEST`, or `ETIMEOUT` for tedious's own
 * requestTimeout, or `ECANCEL` when the request was cancelled).
 */
export function mapError(error: unknown): ToolError | undefined {
  if (error instanceof ToolError) return error;
  if (!(error instanceof Error)) return undefined;
  const { code, number } = error as { code?: unknown; number?: unknown };
  const kind = error.constructor?.name;
  const message = error.message;

  if (kind === 'TimeoutError') return unavailable(error, 'no connection became free in time'); // tarn
  if (kind === 'ConnectionError') return unavailable(error, message);
  if (kind === 'RequestError' && (code === 'ETIMEOUT' || code === 'ECANCEL'))
    return new ToolError('timeout', `The statement was cancelled: ${message}`, { cause: error });
  if (kind === 'RequestError' && (code === 'ECLOSE' || code === 'EINVALIDSTATE')) return unavailable(error, message);

  if (typeof number === 'number' && typeof code === 'string') {
    if (SCHEMA_CHANGED.has(number))
      return new SchemaChangedError(`${message} (the database schema may have changed: refresh the catalog)`, {
        cause: error,
      });
    const mapped = NUMBER[number];
    if (mapped === 'database_unavailable') return unavailable(error, message);
    if (mapped === 'timeout')
      return new ToolError('timeout', `The statement was cancelled: ${message}`, { cause: error });
    return new ToolError(mapped ?? 'database_error', message, { cause: error });
  }
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return unavailable(error, message);
  return undefined;
}

function unavailable(error: Error, detail: string): ToolError {
  return new ToolError(
    'database_unavailable',
    `Cannot reach the SQL Server: ${detail || 'connection failed'}. Check that it is running and that the connection URL (host, port, user, password, database, encrypt, trustServerCertificate) is right.`,
    { cause: error },
  );
}
