import type { Engine } from '../../src/engine.js';
import { testDatabasesOf } from '../../src/testing/index.js';

/**
 * The URL of the live server an engine's tests run against (its `testing.env`, e.g. PG_URL), or
 * undefined when it is unset and the tests skip. Under CI (CI=true) a server CI installs is
 * required, so a missing one fails the run instead of silently skipping its tests (as the
 * server's `liveTargets` does).
 */
export function liveUrl(engine: Engine): string | undefined {
  const testing = testDatabasesOf(engine);
  if (!testing?.env) throw new Error(`${engine.title} has no test server`);
  const url = process.env[testing.env];
  if (!url && testing.requiredInCi && process.env.CI)
    throw new Error(`CI needs ${engine.title}: set ${testing.env} (see .ci/run)`);
  return url;
}

/** Creates (or re-creates) an empty database named `name` on `baseUrl`'s server and returns its URL. */
export async function freshDatabase(engine: Engine, baseUrl: string, name: string): Promise<string> {
  const databases = testDatabasesOf(engine);
  if (!databases) throw new Error(`${engine.title} has no test databases`);
  // as the testing package's freshDatabase: two checkouts against one server keep apart
  return databases.fresh(baseUrl, name + (process.env.TEST_DB_SUFFIX ?? ''));
}
