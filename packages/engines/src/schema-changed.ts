import { ToolError } from '@mcp-db-bench/contract';

/**
 * A statement named a table or column the database does not have: the cached schema is
 * probably stale. Engines return this from `mapError` so the server reloads the schema on
 * exactly these errors, not on every database error.
 */
export class SchemaChangedError extends ToolError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('database_error', message, options);
  }
}
