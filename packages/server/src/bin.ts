#!/usr/bin/env node
import { ToolError } from '@mcp-db-bench/contract';
import { main } from './cli.js';

// The one error boundary: a clear line on stderr and a non-zero exit, never a stack for a user mistake.
main().catch((error: unknown) => {
  const message = error instanceof ToolError ? error.message : ((error as Error)?.message ?? String(error));
  process.stderr.write(`mcp-db-server: ${message}\n`);
  process.exit(1);
});
