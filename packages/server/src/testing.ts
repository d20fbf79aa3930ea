/**
 * What tests and the tools that run them need of the server, kept out of its public entry:
 * `@mcp-db-bench/server/testing`. Nothing here is for serving.
 */
export { TEST_DELAY_ENV } from './test-delay.js';
