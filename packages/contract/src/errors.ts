/**
 * Error codes every tool uses. A tool never throws: it answers `isError: true` with
 * `{ "error": { "code", "message" } }`, the same on every engine.
 */
export const ERROR_CODES = [
  /** the arguments do not fit the tool's input schema */
  'invalid_argument',
  /** no such table or view */
  'unknown_table',
  /** no such column in the table */
  'unknown_column',
  /** the filter could not be parsed or uses an unknown operator */
  'invalid_filter',
  /** a value does not fit the column's type */
  'type_mismatch',
  /** the cursor is malformed or belongs to another query */
  'invalid_cursor',
  /** a request exceeds a configured limit */
  'limit_exceeded',
  /** the database could not be reached or dropped the connection */
  'database_unavailable',
  /** the database refused the statement */
  'database_error',
  /** the statement ran past its timeout and was cancelled */
  'timeout',
  /** a write was attempted on a read-only server */
  'read_only',
  /** a write's guard failed (expect_rows) or it lost a deadlock after retries; nothing was changed */
  'conflict',
  /** a bug: please report it */
  'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ToolErrorBody {
  code: ErrorCode;
  message: string;
}

/** A typed error library code throws; tool handlers turn it into an `isError` result. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  toJSON(): { error: ToolErrorBody } {
    return { error: { code: this.code, message: this.message } };
  }
}
