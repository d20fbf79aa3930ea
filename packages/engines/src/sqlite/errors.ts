import { ToolError } from '@mcp-db-bench/contract';
import { SchemaChangedError } from '../schema-changed.js';

/** better-sqlite3 throws SqliteError with SQLite's extended result code name. */
export function mapError(error: unknown): ToolError | undefined {
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return undefined;
  const code = error.code;
  const message = error.message;
  // an answer stopped past its budget on a worker (answer-bytes.ts): the message says it all
  if (code === 'limit_exceeded') return new ToolError('limit_exceeded', message);
  if (!code.startsWith('SQLITE_')) return undefined;
  if (code.startsWith('SQLITE_READONLY')) return new ToolError('read_only', `the database is read-only: ${message}`);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ToolError('database_unavailable', `the database is locked by another writer, try again: ${message}`);
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CORRUPT')) {
    return new ToolError('database_unavailable', `the database file cannot be read: ${message}`);
  }
  if (code === 'SQLITE_INTERRUPT') return new ToolError('timeout', 'the statement was interrupted after its timeout');
  if (/no such (table|column)/.test(message)) {
    return new SchemaChangedError(`${message} (the schema may have changed; list_tables shows the current one)`);
  }
  if (code.startsWith('SQLITE_TOOBIG')) {
    return new ToolError(
      'limit_exceeded',
      `${message}: a value passed SQLite's limit on one string or blob; ask for a prefix of it or its length`,
    );
  }
  if (code.startsWith('SQLITE_MISMATCH')) return new ToolError('type_mismatch', message);
  if (code === 'SQLITE_RANGE') {
    // Only caller-written SQL gets here: a parameter in SQLite's own forms, which the server does not fill.
    return new ToolError(
      'invalid_argument',
      `sql: the statement's parameters do not match the values given (${message}); write each value as a :name parameter, not as ?, ?NNN, @name or $name`,
    );
  }
  return new ToolError('database_error', message);
}
