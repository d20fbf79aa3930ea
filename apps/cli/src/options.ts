import { InvalidArgumentError, Option } from 'commander';
import { INDEX_PROFILES, type IndexProfile, MAX_SCALE } from '@mcp-db-bench/dataset';
import { URL_FORMS } from '@mcp-db-bench/server';

/** The default database: an embedded SQLite file in the working directory. */
export const DEFAULT_DB = 'sqlite:mcp-db-bench.db';

export function parseScale(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n > MAX_SCALE) {
    throw new InvalidArgumentError(`scale must be above 0 and at most ${MAX_SCALE} (1 = 2.56 million rows, 0.01 = 25,600)`);
  }
  return n;
}

export function parseSeed(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new InvalidArgumentError('seed must be a whole number from 0 to 2147483647');
  return n;
}

export function parseProfile(value: string): IndexProfile {
  if (!(value in INDEX_PROFILES)) throw new InvalidArgumentError(`index profile must be one of: ${Object.keys(INDEX_PROFILES).join(', ')}`);
  return value as IndexProfile;
}

/** The options several commands share, defined once so their defaults cannot drift apart. */
export const dbOption = (description = `database URL: ${URL_FORMS}`) =>
  new Option('--db <url>', description).env('MCP_DB_BENCH_DB').default(DEFAULT_DB);

export const scaleOption = (description = 'dataset size: 1 = 2.56 million rows, 0.01 = 25,600') =>
  new Option('--scale <n>', description).default(0.01).argParser(parseScale);

export const seedOption = (description = 'random seed: the same seed gives the same rows on every engine') =>
  new Option('--seed <n>', description).default(42).argParser(parseSeed);

export const indexesOption = (description = 'baseline (primary keys only) or optimized (foreign-key and filter columns)') =>
  new Option('--indexes <profile>', description).default('optimized').argParser(parseProfile);
