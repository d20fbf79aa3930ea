/**
 * One lifecycle to serve a plan, shared by run, floor and soak: the databases (the ones given,
 * or a new SQLite file in a temporary directory), each resolved to its engine once; seeding and
 * what the runner may do to a database it owns; the servers and echo floors started for the
 * plan; and their cleanup, on success, on an error and on Ctrl-C alike.
 */
import { join } from 'node:path';
import type { IndexSet } from '@mcp-db-bench/dataset';
import { engineForUrl } from '@mcp-db-bench/engines';
import type { PlanTarget } from '@mcp-db-bench/loadgen';
import { logLine } from '../render/progress.js';
import { type Database, ownedDatabase, rawDriver, workersFor } from './database.js';
import { type HttpFloor, startHttpFloor } from './http-floor.js';
import { cleanUpOnSignals, makeTempDir, removeTempDir } from './interrupt.js';
import type { PeerSpec } from './peers/index.js';
import { type PeerProcess, startPeer } from './peers/start.js';
import { seedIfMissing } from './seed-if-missing.js';
import { type ServerProcess, startServer } from './server-process.js';

export interface ServingOptions {
  /** the databases given (--db); without them, `temporary` decides */
  db?: readonly string[];
  /** no database given: a new SQLite file in a temporary directory (false: none, e.g. run --target) */
  temporary: boolean;
  log?: (line: string) => void;
}

export interface Serving {
  readonly databases: readonly Database[];
  /** Seeds a database that has no dataset yet; then what the runner may do to it (reindex, driver-only calls). */
  prepare(
    db: Database,
    dataset: { scale: number; seed: number; indexes: IndexSet },
  ): Promise<Pick<PlanTarget, 'reindex' | 'driver'>>;
  /** What the runner may do to a database it did not seed (a shard's shared one): driver-only calls, never reindex. */
  driverOnly(db: Database): Promise<Pick<PlanTarget, 'driver'>>;
  /**
   * Our server on the database, over HTTP on a free loopback port; `workers` asked for (the engine may allow one);
   * `otel`: the OpenTelemetry variables it gets instead of any OTEL_* of this process.
   */
  server(
    db: Database,
    options?: { args?: readonly string[]; workers?: number; cpus?: string; otel?: Record<string, string> },
  ): Promise<ServerProcess>;
  /** Another MCP server (`run --peer`) on the database, over HTTP on a free loopback port, on `cpus` when given. */
  peer(db: Database, spec: PeerSpec, cpus?: string): Promise<PeerProcess>;
  /** The bare node:http echo floor, on `cpus` when given. */
  floor(cpus?: string): Promise<HttpFloor>;
  /** Something else to undo when the plan ends. */
  onCleanup(stop: () => unknown): void;
}

/** Runs `plan` with the databases served, and cleans up whatever happens. */
export async function withServing<T>(options: ServingOptions, plan: (serving: Serving) => Promise<T>): Promise<T> {
  const log = options.log ?? logLine;
  cleanUpOnSignals();
  const tempDir = !options.db && options.temporary ? makeTempDir('mcp-db-bench-') : undefined;
  const urls = options.db ?? (tempDir ? [`sqlite:${join(tempDir, 'bench.db')}`] : []);
  const stops: Array<() => unknown> = [];
  const serving: Serving = {
    databases: urls.map((url) => ({ url, engine: engineForUrl(url) })),
    prepare: async (db, dataset) => {
      await seedIfMissing(db.url, dataset, log);
      return ownedDatabase(db, dataset.indexes, log);
    },
    driverOnly: async (db) => (db.engine.oneProcess ? {} : { driver: () => rawDriver(db) }),
    server: async (db, { args = [], workers, cpus, otel } = {}) => {
      const count = workers === undefined ? [] : ['--workers', String(workersFor(db, workers, log))];
      const server = await startServer(db.url, [...count, ...args], cpus, otel);
      stops.push(server.stop);
      return server;
    },
    peer: async (db, spec, cpus) => {
      const dir = makeTempDir(`mcp-db-bench-${spec.launcher.name}-`);
      stops.push(() => removeTempDir(dir));
      const peer = await startPeer(spec, db, dir, cpus);
      stops.push(peer.stop);
      return peer;
    },
    floor: async (cpus) => {
      const floor = await startHttpFloor(cpus);
      stops.push(floor.stop);
      return floor;
    },
    onCleanup: (stop) => void stops.push(stop),
  };
  try {
    return await plan(serving);
  } finally {
    for (const stop of stops.reverse()) await stop();
    if (tempDir) removeTempDir(tempDir);
  }
}
