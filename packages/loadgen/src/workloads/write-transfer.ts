import { transfer } from './transfer.js';
import type { Workload } from './workload.js';
import { write } from './write.js';

/**
 * `write` and `transfer` at once, on the same tables: even agents draft payments, odd agents
 * move money. The integrity check's load: inserts, updates, deletes and transfers together.
 */
export const writeTransfer: Workload = {
  name: 'write-transfer',
  description: 'write and transfer together: even agents write, odd agents transfer',
  tables: ['customers', 'accounts', 'cards', 'payments'],
  database: true,
  writes: true,
  commits: transfer.commits,
  requires: [...new Set([...write.requires, ...transfer.requires])],
  next() {
    throw new Error('write-transfer keeps state per agent: the agent loop uses its plan');
  },
  plan: (agent, context) => (context.index % 2 === 0 ? write : transfer).plan!(agent, context),
};
