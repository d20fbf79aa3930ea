/** The tools every mcp-db-bench server exposes, by name. */
export const TOOL_NAMES = {
  listTables: 'list_tables',
  describeTable: 'describe_table',
  query: 'query',
  get: 'get',
  aggregate: 'aggregate',
  insert: 'insert',
  update: 'update',
  delete: 'delete',
  transact: 'transact',
  sql: 'sql',
  echo: 'echo',
} as const;
export type ToolName = (typeof TOOL_NAMES)[keyof typeof TOOL_NAMES];
