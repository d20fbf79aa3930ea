#!/usr/bin/env node
import { buildProgram } from './program.js';

// The one error boundary and exit path: a single actionable line on stderr, exit code 1.
buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`mcp-db-bench: ${message}\n`);
    process.exit(1);
  });
