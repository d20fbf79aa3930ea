/**
 * How long a study takes, said before it starts and refined as its segments finish: the steps
 * (warm-up and measured time), the calls that run past their step's end (a sized segment's, as
 * long as its calls in flight take to drain), and what the runs do besides (re-indexing, each
 * run's start: its server's warm-up, session starts, the cost decomposition). The last is
 * learned from the segments measured so far; before any, a guess by scale.
 */
import type { ResultFile } from '@mcp-db-bench/contract';
import { WORKLOADS } from '@mcp-db-bench/loadgen';
import { isSized, STUDY, type StudySegment, type StudySettings } from './study.js';
import { drainMs, type Sizing } from './study-sizing.js';

/** What a run spends besides its steps, per database. */
export interface Overheads {
  /** its start: the server's warm-up, session starts, the decomposition, the answer check */
  startMs: number;
  /** each change of index set (iterations + 1 per run with two sets) */
  reindexMs: number;
}

/**
 * Before any segment is measured: index creation grows with the rows. About 0.5 to 2 s a change
 * at scale 1 over SQLite, PostgreSQL and MariaDB, as learned by the two quiet scale-1 studies in
 * docs/study.md (the transfer segment's, which restores the dataset too, the most): the guess
 * takes the top, so a study's first estimate (25 min for those, measured 24) is not twice its time.
 */
export const guessedOverheads = (scale: number): Overheads => ({ startMs: 10_000, reindexMs: 1000 + 1000 * scale });

export interface Estimate {
  stepsMs: number;
  overrunMs: number;
  /** re-indexing and the runs' starts */
  otherMs: number;
}

const databaseWorkloads = (segment: StudySegment) => segment.workloads.filter((w) => WORKLOADS[w]?.database).length;

/** A segment's time: `iterations` of its steps over `s.dbs`, sized where it is. */
export function segmentEstimate(
  segment: StudySegment,
  s: StudySettings,
  {
    sizing,
    overheads,
    iterations = s.iterations,
    cpus,
  }: { sizing?: Sizing; overheads: Overheads; iterations?: number; cpus: number },
): Estimate {
  const perAgents = segment.workloads.reduce((n, w) => n + (WORKLOADS[w]!.database ? STUDY.indexes.length : 1), 0);
  // each peer takes its own turn at every step, and starts as our server does
  const servers = 1 + s.peers.length;
  let stepsMs = 0;
  let overrunMs = 0;
  for (const n of segment.agents) {
    const steps = s.dbs.length * servers * iterations * perAgents;
    stepsMs += steps * (s.warmupMs + (sizing?.durationAt[n] ?? s.durationMs));
    if (isSized(segment) && sizing) overrunMs += steps * drainMs(sizing, n, cpus);
  }
  const reindexings = databaseWorkloads(segment) ? iterations + 1 : 0;
  const otherMs = s.dbs.length * (servers * overheads.startMs + reindexings * overheads.reindexMs);
  return { stepsMs, overrunMs, otherMs };
}

/**
 * What a measured segment spent besides its steps, per database and re-indexing: its run's time
 * less its steps' (warm-up, measured time, the last call's run past the end), the start taken
 * as guessed and the rest put down to re-indexing.
 */
export function learnedOverheads(file: ResultFile, guess: Overheads): Overheads {
  const elapsed = Date.parse(file.finishedAt) - Date.parse(file.startedAt);
  const steps = file.steps.reduce(
    (ms, step) => ms + file.config.warmupMs + step.durationMs + (step.overrun?.lastEndedAfterMs ?? 0),
    0,
  );
  const targets = file.config.targets;
  const dbs = Math.max(1, targets.filter((t) => !t.peer).length);
  const servers = Math.max(1, targets.length / dbs);
  const iterations = Math.max(...file.steps.map((s) => s.iteration), file.config.iterations);
  const reindexMs = Math.max(0, ((elapsed - steps) / dbs - servers * guess.startMs) / (iterations + 1));
  return { startMs: guess.startMs, reindexMs };
}

const minutes = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

export const total = (e: Estimate) => e.stepsMs + e.overrunMs + e.otherMs;

export function sum(estimates: readonly Estimate[]): Estimate {
  return estimates.reduce(
    (a, e) => ({
      stepsMs: a.stepsMs + e.stepsMs,
      overrunMs: a.overrunMs + e.overrunMs,
      otherMs: a.otherMs + e.otherMs,
    }),
    { stepsMs: 0, overrunMs: 0, otherMs: 0 },
  );
}

/** `about 62 min (steps 40, calls past their steps' end 6, re-indexing and the runs' starts 16)` */
export function estimateText(e: Estimate): string {
  const parts = [
    `steps ${minutes(e.stepsMs)}`,
    ...(e.overrunMs > 0 ? [`calls past their steps' end ${minutes(e.overrunMs)}`] : []),
    `re-indexing and the runs' starts ${minutes(e.otherMs)}`,
  ];
  return `about ${minutes(total(e))} (${parts.join(', ')})`;
}
