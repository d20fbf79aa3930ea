import { Command } from 'commander';
import { indexCommand } from './commands/indexes.js';
import { seedCommand } from './commands/seed.js';
import { VERSION } from './version.js';

/** The CLI: one file per command under commands/, registered here. */
export function buildProgram(): Command {
  return new Command('mcp-db-bench')
    .description('Benchmark databases the way AI agents use them: through MCP.')
    .version(VERSION)
    .addCommand(seedCommand())
    .addCommand(indexCommand())
    .showHelpAfterError();
}
