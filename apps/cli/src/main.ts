import { CommanderError } from 'commander';
import { EXIT, redactAll, UsageError } from './errors.js';
import { parseCli } from './program.js';
import { isInterrupted } from './serving/interrupt.js';

// The one error boundary and exit path: a single line on stderr naming what failed.
// Exit 2 for a usage error (commander's or ours), 1 for a failure while running.
parseCli(process.argv).catch((error: unknown) => {
  // Ctrl-C: the signal handler stops what was started, cleans up and exits 130 itself.
  if (isInterrupted()) return;
  if (error instanceof CommanderError) {
    // commander printed its message already (help and --version end here too, with 0)
    process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`mcp-db-bench: ${redactAll(message)}\n`);
  process.exit(error instanceof UsageError ? EXIT.usage : EXIT.failure);
});
