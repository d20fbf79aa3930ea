import { boundHeapGrowth, execWithServingFlags } from './heap.js';
import { isWorker, requestedWorkers, servePrimary } from './transports/cluster.js';

// A --workers primary only forks and supervises: it loads none of the server, so it stays small.
const workers = isWorker() ? 0 : await requestedWorkers(process.argv.slice(2), process.env);
if (workers > 1) {
  await servePrimary(workers, (line) => process.stderr.write(`mcp-db-server: ${line}\n`));
} else {
  // one process serving HTTP: with the flags a long-lived server wants (a worker has them)
  if (workers === 1) execWithServingFlags();
  boundHeapGrowth();
  const { main } = await import('./cli.js');
  // The one error boundary: a clear line on stderr and a non-zero exit, never a stack for a user mistake.
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`mcp-db-server: ${message}\n`);
    process.exit(1);
  });
}
