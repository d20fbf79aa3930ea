/**
 * `run --shard I/N`: parsing the flags, agreeing on the start instant (a time given, or a barrier
 * of files on a shared volume), the run id that ties the shards' files together, and the
 * database check that stands in for seeding (shards never seed or re-index a shared database).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResultFile } from '@mcp-db-bench/contract';
import { INDEX_SETS, TABLES } from '@mcp-db-bench/dataset';
import { redactUrl } from '@mcp-db-bench/engines';
import { writeWhole } from '@mcp-db-bench/report';
import { InvalidArgumentError } from 'commander';
import { onDatabase } from '../errors.js';
import type { Database } from './database.js';

export interface ShardFlag {
  index: number;
  count: number;
}

/** `I/N`, I counting from 0 as Kubernetes' JOB_COMPLETION_INDEX does. */
export function parseShard(value: string): ShardFlag {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('--shard must be I/N: shard I (counting from 0) of N, e.g. 0/4 to 3/4');
  const [index, count] = [Number(match[1]), Number(match[2])];
  if (count < 1) throw new InvalidArgumentError(`--shard ${value}: N must be at least 1`);
  if (index >= count)
    throw new InvalidArgumentError(
      `--shard ${value}: I counts from 0, so with N = ${count} it must be 0 to ${count - 1}`,
    );
  return { index, count };
}

/** A start instant a few seconds past is still usable (clocks and pod starts differ); more is a mistake. */
export const START_AT_PAST_TOLERANCE_MS = 5000;

/** `--start-at`: an ISO time with a zone, as epoch ms. */
export function parseStartAt(value: string, now = Date.now()): number {
  // The zone is required: without one, each machine would read the time in its own zone.
  const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(value.trim())
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(at))
    throw new InvalidArgumentError(
      `--start-at must be an ISO time with a zone (Z or +hh:mm) such as ${new Date(now + 60_000).toISOString()}, not ${value}`,
    );
  if (now - at > START_AT_PAST_TOLERANCE_MS)
    throw new InvalidArgumentError(
      `--start-at ${value} is ${Math.round((now - at) / 1000)} s in the past: give an instant every shard reaches after starting up`,
    );
  return at;
}

/** After the last shard is ready, every shard waits this long more: time to see the last file. */
export const BARRIER_DELAY_MS = 1000;
const BARRIER_POLL_MS = 100;
const BARRIER_TIMEOUT_MS = 10 * 60_000;

/** Refuses a barrier file this shard would write that is still there from an earlier run. */
export function checkBarrier(path: string, shard: ShardFlag): void {
  const mine = `${path}.${shard.index}`;
  if (existsSync(mine))
    throw new Error(
      `the barrier file ${mine} is left from an earlier run: remove ${path}.* before starting the shards`,
    );
}

/**
 * Writes PATH.I (the time this shard got ready), waits until PATH.0 … PATH.(N-1) all exist and
 * returns the same instant on every shard: the last shard's ready time plus a short delay.
 */
export async function barrier(path: string, shard: ShardFlag, log: (line: string) => void): Promise<number> {
  const mine = `${path}.${shard.index}`;
  writeWhole(mine, String(Date.now())); // whole or absent: another shard never reads half a number
  const files = Array.from({ length: shard.count }, (_, i) => `${path}.${i}`);
  const deadline = Date.now() + BARRIER_TIMEOUT_MS;
  let logged = false;
  for (;;) {
    const missing = files.filter((f) => !existsSync(f));
    if (missing.length === 0) break;
    if (Date.now() > deadline)
      throw new Error(
        `barrier: no sign of ${missing.join(', ')} after ${BARRIER_TIMEOUT_MS / 1000} s: did every shard start?`,
      );
    if (!logged)
      log(
        `shard ${shard.index}/${shard.count}: ready, waiting for ${missing.length} more shard${missing.length > 1 ? 's' : ''} (${path}.*)`,
      );
    logged = true;
    await sleep(BARRIER_POLL_MS);
  }
  return Math.max(...files.map((f) => Number(readFileSync(f, 'utf8')))) + BARRIER_DELAY_MS;
}

/** Says when the first step begins (the runner sleeps until then). */
export function announceStart(at: number, shard: ShardFlag, log: (line: string) => void): number {
  const wait = at - Date.now();
  log(
    `shard ${shard.index}/${shard.count}: ${wait > 0 ? `starting in ${(wait / 1000).toFixed(1)} s` : `starting ${(-wait / 1000).toFixed(1)} s late`}, at ${new Date(at).toISOString()}`,
  );
  return at;
}

/** The same on every shard of a run: the configuration and the start instant, hashed. */
export function runIdOf(config: ResultFile['config'], startAt: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...config, shard: undefined, startAt }))
    .digest('hex')
    .slice(0, 12);
}

/**
 * Shards never seed: the dataset must be there already, or the shards would race to load it.
 * Answers the index set the database has, from the same look at its catalog.
 */
export async function requireDataset({ url, engine }: Database): Promise<string> {
  const seedFirst = 'seed it once with mcp-db-bench seed --db ... before starting the shards';
  const found = await onDatabase(url, async () => {
    const { db, close } = await engine.connect(url, { poolSize: 1, inProcess: true });
    try {
      return await engine.introspect(db);
    } finally {
      await close();
    }
  }).catch((error: Error) => {
    error.message = `${error.message} (shards never seed: ${seedFirst})`;
    throw error;
  });
  const tables = new Set(found.tables.map((t) => t.name.toLowerCase()));
  const missing = TABLES.filter((t) => !tables.has(t.name)).map((t) => t.name);
  if (missing.length)
    throw new Error(`${redactUrl(url)} has no benchmark dataset (no ${missing.join(', ')}): ${seedFirst}`);
  return indexSetOf(found.indexes.map((i) => i.name));
}

/**
 * The index set a database's secondary indexes make: a shard measures the shared database as
 * it finds it (never re-indexed), so its file records that, not the index sets a run would switch to.
 */
export function indexSetOf(indexNames: readonly string[]): string {
  const have = new Set(indexNames.map((name) => name.toLowerCase()));
  const optimized = INDEX_SETS.optimized;
  const present = optimized.filter((spec) => have.has(spec.name)).length;
  if (present === optimized.length) return 'optimized';
  return present === 0 ? 'baseline' : `partial (${present} of ${optimized.length} optimized indexes)`;
}
