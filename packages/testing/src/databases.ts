import { ENGINES, type Engine, engineForUrl } from '@mcp-db-bench/engines';
import { testDatabasesOf } from '@mcp-db-bench/engines/testing';

/**
 * The live databases the integration tests run against: every embedded engine always, and
 * every server whose URL variable is set (each engine names its own, see its `testing`).
 * Under CI (CI=true) the servers CI installs are required, so a missing one fails the run
 * instead of silently skipping its tests.
 */
export interface LiveTarget {
  engine: string;
  /** URL of a server's maintenance database, or `NAME:` for an embedded engine */
  baseUrl: string;
}

export function liveTargets(): LiveTarget[] {
  const embedded: LiveTarget[] = [];
  const servers: LiveTarget[] = [];
  for (const engine of ENGINES) {
    const testing = testDatabasesOf(engine);
    if (!testing) continue;
    if (!testing.env) {
      embedded.push({ engine: engine.name, baseUrl: `${engine.schemes[0]}:` });
      continue;
    }
    const url = process.env[testing.env];
    if (url) servers.push({ engine: engine.name, baseUrl: url });
    else if (testing.requiredInCi && process.env.CI)
      throw new Error(`CI needs ${engine.title}: set ${testing.env} (see .ci/run)`);
  }
  return [...embedded, ...servers];
}

/**
 * The live databases as a privileged user (superuser, every privilege, FILE included), for the
 * tests that must show a refusal the database's own rights would not give: every embedded engine,
 * and every server whose `adminEnv` is set. Under CI a missing one fails, like `liveTargets`.
 */
export function privilegedTargets(): LiveTarget[] {
  const out: LiveTarget[] = [];
  for (const engine of ENGINES) {
    const testing = testDatabasesOf(engine);
    if (!testing) continue;
    if (!testing.env) out.push({ engine: engine.name, baseUrl: `${engine.schemes[0]}:` });
    if (!testing.adminEnv) continue;
    const url = process.env[testing.adminEnv];
    if (url) out.push({ engine: engine.name, baseUrl: url });
    else if (testing.requiredInCi && process.env.CI)
      throw new Error(`CI needs ${engine.title} as a privileged user: set ${testing.adminEnv} (see .ci/run)`);
  }
  return out;
}

/** The engine a target is tested as (MYSQL_URL's server is tested as MariaDB, whatever its scheme). */
export function engineOf(target: LiveTarget): Engine {
  return ENGINES.find((e) => e.name === target.engine) ?? engineForUrl(target.baseUrl);
}

/**
 * Creates (or re-creates) an empty database named `name` and returns its URL. `TEST_DB_SUFFIX`
 * (letters, digits, `_`) is appended to the name, so two checkouts can run the suites against
 * one database server at once without dropping each other's databases.
 */
export async function freshDatabase(target: LiveTarget, name: string): Promise<string> {
  const engine = engineOf(target);
  const databases = testDatabasesOf(engine);
  if (!databases) throw new Error(`${engine.title} has no test databases`);
  const suffix = process.env.TEST_DB_SUFFIX ?? '';
  if (!/^\w*$/.test(suffix)) throw new Error(`TEST_DB_SUFFIX: letters, digits and _ only, not ${suffix}`);
  return databases.fresh(target.baseUrl, name + suffix);
}
