import { type ErrorCode, ToolError } from '@mcp-db-bench/contract';
import { SchemaChangedError } from '../schema-changed.js';

/** Client-side codes of Node and mysql2 for a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'HANDSHAKE_NO_SSL_SUPPORT',
  'HANDSHAKE_SSL_ERROR',
]);

/** Server error numbers (MySQL and MariaDB share most) by tool error. */
const ERRNO: Readonly<Record<number, ErrorCode>> = {
  1040: 'database_unavailable', // ER_CON_COUNT_ERROR: too many connections
  1044: 'database_unavailable', // ER_DBACCESS_DENIED_ERROR
  1045: 'database_unavailable', // ER_ACCESS_DENIED_ERROR: bad user or password
  1049: 'database_unavailable', // ER_BAD_DB_ERROR: unknown database
  1053: 'database_unavailable', // ER_SERVER_SHUTDOWN
  1129: 'database_unavailable', // ER_HOST_IS_BLOCKED
  1130: 'database_unavailable', // ER_HOST_NOT_PRIVILEGED
  1203: 'database_unavailable', // ER_TOO_MANY_USER_CONNECTIONS
  1226: 'database_unavailable', // ER_USER_LIMIT_REACHED
  1927: 'database_unavailable', // ER_CONNECTION_KILLED (MariaDB)
  4031: 'database_unavailable', // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8)
  1317: 'timeout', // ER_QUERY_INTERRUPTED: KILL QUERY
  3024: 'timeout', // ER_QUERY_TIMEOUT: MySQL max_execution_time
  1969: 'timeout', // ER_STATEMENT_TIMEOUT: MariaDB max_statement_time
  1792: 'read_only', // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
  1213: 'conflict', // ER_LOCK_DEADLOCK: the transaction was rolled back
  1205: 'conflict', // ER_LOCK_WAIT_TIMEOUT: the statement was rolled back (and we roll back the rest)
  1290: 'read_only', // ER_OPTION_PREVENTS_STATEMENT: --read-only / --super-read-only
  1836: 'read_only', // ER_READ_ONLY_MODE
  1292: 'type_mismatch', // ER_TRUNCATED_WRONG_VALUE: bad date or number text
  1264: 'type_mismatch', // ER_WARN_DATA_OUT_OF_RANGE
  1366: 'type_mismatch', // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1367: 'type_mismatch', // ER_ILLEGAL_VALUE_FOR_TYPE
  1406: 'type_mismatch', // ER_DATA_TOO_LONG
  1411: 'type_mismatch', // ER_WRONG_VALUE_FOR_TYPE
  1690: 'type_mismatch', // ER_DATA_OUT_OF_RANGE: e.g. BIGINT value is out of range
  3140: 'type_mismatch', // ER_INVALID_JSON_TEXT (MySQL)
  4038: 'type_mismatch', // ER_JSON_SYNTAX (MariaDB)
  4078: 'type_mismatch', // ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION (MariaDB)
};

const SCHEMA_CHANGED = new Set([1146, 1054]); // ER_NO_SUCH_TABLE, ER_BAD_FIELD_ERROR

/** Maps a mysql2 error to a tool error by its server `errno` or client `code`. */
export function mapError(error: unknown): ToolError | undefined {
  if (error instanceof ToolError) return error;
  if (!(error instanceof Error)) return undefined;
  const { code, errno, fatal, sqlMessage } = error as {
    code?: unknown;
    errno?: unknown;
    fatal?: unknown;
    sqlMessage?: unknown;
  };
  // mysql2 keeps the server's text in sqlMessage; message is the same text, never the SQL
  const message = typeof sqlMessage === 'string' ? sqlMessage : error.message;
  const serverError = typeof errno === 'number' && typeof sqlMessage === 'string';

  // mysql2 refuses a result column named like a property of every JavaScript object (`__proto__`),
  // and ends the connection: the statement's mistake, not the database's absence.
  const reserved = /^The field name \((.*)\) can't be the same as an object's private property/.exec(error.message);
  if (reserved)
    return new ToolError(
      'invalid_argument',
      `a result column is named ${reserved[1]}, which the MySQL driver refuses (every JavaScript object has a property of that name); name it otherwise with as`,
      { cause: error },
    );
  if (code === 'PROTOCOL_SEQUENCE_TIMEOUT')
    return new ToolError('timeout', `The statement timed out: ${message}`, { cause: error });
  if (!serverError) {
    // fatal marks an error that broke the connection itself (mysql2 sets it on those it raises)
    if ((typeof code === 'string' && CONNECTION_CODES.has(code)) || fatal === true) return unavailable(error, message);
    // raised by mysql2's pool without a code once it has been ended (a fixed driver string)
    if (error.message === 'Pool is closed.') return unavailable(error, message);
    return undefined;
  }

  if (SCHEMA_CHANGED.has(errno))
    return new SchemaChangedError(`${message} (the database schema may have changed: refresh the catalog)`, {
      cause: error,
    });
  const mapped = ERRNO[errno];
  if (errno === 1045 || errno === 1044) return loginRefused(error, message);
  if (errno === 1049) return missingDatabase(error, message);
  if (mapped === 'database_unavailable') return unavailable(error, message);
  if (mapped === 'timeout')
    return new ToolError('timeout', `The statement was cancelled: ${message}`, { cause: error });
  return new ToolError(mapped ?? 'database_error', message, { cause: error });
}

function unavailable(error: Error, detail: string): ToolError {
  return new ToolError(
    'database_unavailable',
    `Cannot reach the MySQL/MariaDB server: ${detail || 'connection failed'}. Check that it is running and that the connection URL (host, port, user, password, database) is right.`,
    { cause: error },
  );
}

/** The server answered but refused the credentials: say so, rather than "cannot reach". */
function loginRefused(error: Error, detail: string): ToolError {
  return new ToolError(
    'database_unavailable',
    `The MySQL/MariaDB server refused the login: ${detail}. Check the user, password and grants in the connection URL.`,
    { cause: error },
  );
}

/** The server answered, but the URL's database is not there: say how to make it. */
function missingDatabase(error: Error, detail: string): ToolError {
  // the name from the server's words, so the statement can be pasted as it is
  const name = /database '([^']+)'/.exec(detail)?.[1];
  return new ToolError(
    'database_unavailable',
    `The MySQL/MariaDB server has no such database: ${detail}. Create it (CREATE DATABASE ${name ? `\`${name}\`` : 'NAME'}, as a user allowed to) or name an existing one in the connection URL.`,
    { cause: error },
  );
}
