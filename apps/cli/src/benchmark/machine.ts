import { redactUrl } from '@mcp-db-bench/engines';
import { type MachineProbe, machineProbe } from '@mcp-db-bench/loadgen';
import type { Database } from '../serving/database.js';

/**
 * What else uses the machine during each step of a run (`StepResult.interference`): this
 * process and the servers it starts are the run's own, and so are the databases and --target
 * servers it names when they listen on this machine (found by their port).
 */
export function runMachine(databases: readonly Database[], targets: readonly string[] = []): MachineProbe {
  return machineProbe({
    self: process.pid,
    servers: [
      ...databases.map((db) => ({ what: redactUrl(db.url), url: db.url, port: db.engine.port })),
      ...targets.map((url) => ({ what: redactUrl(url), url })),
    ],
  });
}
