import type { McpServerFactory } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

/**
 * Serves one client over stdin/stdout. The SDK decides the era from the opening message
 * (`initialize`, or a request in the modern envelope) and pins it for the connection. Resolves
 * when the client closes stdin.
 */
export function runStdio(factory: McpServerFactory): Promise<void> {
  return new Promise((resolve) => {
    const handle = serveStdio(factory, {
      onerror: (error) => process.stderr.write(`mcp-db-server: ${error.message}\n`),
    });
    process.stdin.once('end', () => handle.close().finally(resolve));
  });
}
