import { InvalidArgumentError } from 'commander';
import { INDEX_PROFILES, type IndexProfile, MAX_SCALE } from '@mcp-db-bench/dataset';

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
