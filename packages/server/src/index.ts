export { SchemaCache } from './catalog/cache.js';
export type { Catalog, Column, Table } from './catalog/types.js';
export { type DatabaseContext, type DatabaseOptions, DEFAULT_LIMITS, openDatabase } from './context.js';
export { DatabaseListError, type DatabaseUrl, databaseUrls } from './database-urls.js';
export { type Databases, openDatabases } from './databases.js';
export { SERVING_NODE_FLAGS } from './heap.js';
export type { NamedContexts } from './routing.js';
export { callTool, createServerFactory } from './server.js';
export {
  BENCH_TOOLS,
  type Limits,
  READ_TOOLS,
  SQL_TOOLS,
  type ToolContext,
  type ToolDefinition,
  toolsFor,
  WRITE_TOOLS,
} from './tools/index.js';
export { type Access, type AccessOptions, accessCheck, assertSafeBind } from './transports/access.js';
export { autoWorkerCount } from './transports/cluster.js';
export { type HttpOptions, MCP_PATH, startHttp } from './transports/http.js';
export { DEFAULT_TRANSPORT_LIMITS, type TransportLimits } from './transports/limits.js';
export {
  parseReady,
  READY_PREFIX,
  readyLine,
  SERVER_BIN,
  type ServerProcess,
  type ServerProcessOptions,
  ServerStartError,
  startServerProcess,
} from './transports/ready.js';
export { runStdio } from './transports/stdio.js';
