import { testFacts } from '../postgres/testing.js';
import { temporaryPath } from '../testing/databases.js';
import type { EngineTesting } from '../testing/facts.js';

/** PostgreSQL's SQL, embedded: always tested, each database a new folder. */
export const testing: EngineTesting = {
  // PGlite makes a whole answer in its WebAssembly memory, in this process, before JS sees a byte
  // of it: there is no answer to stop while it is read (docs/safety.md).
  facts: { ...testFacts, largeAnswer: undefined },
  databases: { fresh: async (_, name) => `pglite:${temporaryPath(name)}` },
};
