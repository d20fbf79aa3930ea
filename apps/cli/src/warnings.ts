import { TEST_DELAY_ENV } from '@mcp-db-bench/server/testing';

/** Warnings a result file carries about how it was measured, whichever command measured it. */

/**
 * Our server inherits the test-only delay (docs/development.md) from the environment whenever
 * the run starts it: on --db and on the default temporary SQLite database alike, never on
 * another server (--target, --target-cmd). A file measured with it says so.
 */
export function testDelayWarning(
  flags: { target?: readonly string[]; targetCmd?: readonly string[] },
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (flags.target?.length || flags.targetCmd?.length) return undefined;
  const delayMs = Number(env[TEST_DELAY_ENV]);
  return delayMs > 0
    ? `every tool call was delayed ${delayMs} ms on purpose (${TEST_DELAY_ENV}): a test run, not a measurement`
    : undefined;
}
