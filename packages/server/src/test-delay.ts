import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolDefinition } from './tools/index.js';

/**
 * A server slowed on purpose, for the tests of `mcp-db-bench compare` only: every tool call
 * waits this many milliseconds before it runs. Set by the hidden option `--test-delay-ms` or
 * this variable (which a server started by `mcp-db-bench run` inherits); never in help, and
 * announced on stderr at start-up whenever it is on. Off (0), the tools are not wrapped at all.
 */
export const TEST_DELAY_ENV = 'MCP_DB_BENCH_TEST_DELAY_MS';

export function withTestDelay(tools: readonly ToolDefinition[], delayMs: number): readonly ToolDefinition[] {
  if (!delayMs) return tools;
  // catalogOnly answers may be reused without running the tool: off, so every call pays the delay
  return tools.map((tool) => ({
    ...tool,
    catalogOnly: false,
    run: async (args, ctx) => {
      await sleep(delayMs);
      return tool.run(args, ctx);
    },
  }));
}
