#!/usr/bin/env node
import { main } from './cli.js';

// The one error boundary: a clear line on stderr and a non-zero exit, never a stack for a user mistake.
main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`mcp-db-server: ${message}\n`);
  process.exit(1);
});
