export { SchemaCache } from './catalog/cache.js';
export type { Catalog, Column, Table } from './catalog/types.js';
export { type DatabaseContext, type DatabaseOptions, DEFAULT_LIMITS, openDatabase } from './context.js';
export { callTool, createServerFactory } from './server.js';
export { BENCH_TOOLS, READ_TOOLS, SQL_TOOLS, WRITE_TOOLS, toolsFor, type Limits, type ToolContext, type ToolDefinition } from './tools/index.js';
export { WORKER_NODE_FLAGS } from './transports/cluster.js';
export { assertSafeBind, type HttpOptions, MCP_PATH, startHttp } from './transports/http.js';
export { DEFAULT_TRANSPORT_LIMITS, type TransportLimits } from './transports/limits.js';
export { runStdio } from './transports/stdio.js';
export {
  parseReady,
  READY_PREFIX,
  readyLine,
  SERVER_BIN,
  ServerStartError,
  type ServerProcess,
  type ServerProcessOptions,
  startServerProcess,
} from './transports/ready.js';
export { TEST_DELAY_ENV } from './test-delay.js';
