/**
 * What tests and bench scripts need of the server, kept out of its public entry:
 * `@mcp-db-bench/server/testing`. Nothing here is for serving.
 */

/** the telemetry the environment asks for (bench/otel-hooks.mjs times its hooks alone) */
export { startTelemetry, type Telemetry } from './telemetry/index.js';
export { TEST_DELAY_ENV } from './test-delay.js';
/** the statements `get` and `query` plan, without running them (bench/plan.mjs times them) */
export { planGet } from './tools/get.js';
export { planQuery } from './tools/query.js';
