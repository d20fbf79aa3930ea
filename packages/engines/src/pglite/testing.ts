import { testFacts } from '../postgres/testing.js';
import { temporaryPath } from '../testing/databases.js';
import type { EngineTesting } from '../testing/facts.js';

/** PostgreSQL's SQL, embedded: always tested, each database a new folder. */
export const testing: EngineTesting = {
  facts: testFacts,
  databases: { fresh: async (_, name) => `pglite:${temporaryPath(name)}` },
};
