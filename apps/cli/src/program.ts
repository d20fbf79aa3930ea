import { Command } from 'commander';
import { doctorCommand } from './commands/doctor.js';
import { floorCommand } from './commands/floor.js';
import { indexCommand } from './commands/indexes.js';
import { reportCommand } from './commands/report.js';
import { runCommand } from './commands/run.js';
import { seedCommand } from './commands/seed.js';
import { serveCommand } from './commands/serve.js';
import { soakCommand } from './commands/soak.js';
import { VERSION } from './version.js';

/** The CLI: one file per command under commands/, registered here. */
export function buildProgram(): Command {
  return new Command('mcp-db-bench')
    .description('Benchmark databases the way AI agents use them: through MCP.')
    .version(VERSION)
    .addCommand(runCommand(), { isDefault: true })
    .addCommand(reportCommand())
    .addCommand(seedCommand())
    .addCommand(indexCommand())
    .addCommand(serveCommand())
    .addCommand(doctorCommand())
    .addCommand(floorCommand())
    .addCommand(soakCommand())
    .showHelpAfterError();
}
