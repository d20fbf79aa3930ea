import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultFile } from '@mcp-db-bench/contract';
import { redactUrl } from '@mcp-db-bench/engines';
import { readResultFile } from '@mcp-db-bench/report';
import { parsePeer } from '../serving/peers/index.js';
import type { CallTimes } from './study-sizing.js';

/**
 * The study's design, as data: `mcp-db-bench study` runs it and docs/study.md shows it. Each
 * segment is one `mcp-db-bench run` over every database given, with its own result file, so an
 * interrupted study resumes at the first segment without a finished file. Workloads and agent
 * counts are per segment: change them here.
 */
export const STUDY = {
  /** compared in every segment, alternated within each iteration (docs/study.md) */
  indexes: ['baseline', 'optimized'],
  /** 5: the fewest that give a ratio an interval of 90% or more (93.75%) */
  iterations: 5,
  durationMs: 2000,
  warmupMs: 500,
  /** a sized segment's longest step: past it, calls at many agents overrun and their ratios are withheld */
  maxStepMs: 180_000,
  /** study --budget: iterations added to an unsettled segment at a time (2 keep the sides' order balanced) */
  batch: 2,
  segments: [
    // a session's start with discovery; at 10 and 50 agents, a newcomer starts beside a fleet
    // starting too. Sized: ours starts a session in 2 ms, but Faucet's discovery takes 0.2 s on
    // MariaDB (5 a second, half what a rate needs) and at 50 agents none finished in 1 s; untimed,
    // the design's steps
    {
      name: 'session-init',
      workloads: ['session-init'],
      agents: [1, 10, 50],
      sized: { meanMs: 2, longestMs: 10 },
    },
    // the handshake alone (initialize and tools/list, no database: once per iteration), apart from
    // the sessions so that their sized steps do not set its own: a --budget batch of it takes a
    // minute where the sessions' takes ten
    { name: 'handshake', workloads: ['handshake'], agents: [1, 10, 50] },
    { name: 'point-read', workloads: ['point-read'], agents: [1, 10, 50] },
    { name: 'filtered', workloads: ['filtered'], agents: [1, 10, 50] },
    // per-entity aggregates: about 1 ms a call
    { name: 'analytical', workloads: ['analytical-entity'], agents: [1, 10, 50] },
    // whole-table groupings take seconds at scale 1: steps sized to hold them (study-sizing.ts);
    // untimed, calls as long as at scale 1, scaled
    {
      name: 'analytical-table',
      workloads: ['analytical-table'],
      agents: [1, 10, 50],
      sized: { meanMs: 600, longestMs: 3000, atScale: 1 },
    },
    { name: 'transfer', workloads: ['transfer'], agents: [1, 10] },
  ],
} as const;

export type StudySegment = (typeof STUDY.segments)[number];

/**
 * A segment whose steps are sized to its calls (`sized`: the calls' times to size by when the
 * quick measurement timed none, at `atScale` when they grow with the data): its steps' duration
 * by agent count.
 */
export const sizedBy = (segment: StudySegment): SizedGuess | undefined =>
  'sized' in segment ? segment.sized : undefined;
export const isSized = (segment: StudySegment) => sizedBy(segment) !== undefined;

export interface SizedGuess extends CallTimes {
  atScale?: number;
}

export interface StudySettings {
  dbs: string[];
  /** --peer values as given (NAME or NAME=COMMAND): started beside ours in every segment */
  peers: string[];
  scale: number;
  seed: number;
  out: string;
  durationMs: number;
  warmupMs: number;
  iterations: number;
  /** --band: the claims rules' practical band, as a factor (absent: the rules' default) */
  band?: number;
}

/** What a segment's run takes beyond the design: its steps' sizes, and (--budget) more iterations into another file. */
export interface SegmentRun {
  /** milliseconds by agent count (`run --duration-at`) */
  durationAt?: Readonly<Record<string, number>>;
  iterations?: number;
  out?: string;
}

/** The `run` arguments of one segment: the command that reproduces its result file. */
export function segmentArgs(segment: StudySegment, s: StudySettings, more: SegmentRun = {}): string[] {
  const sizes = Object.entries(more.durationAt ?? {});
  return [
    'run',
    ...s.dbs.flatMap((db) => ['--db', db]),
    ...s.peers.flatMap((peer) => ['--peer', peer]),
    '--scale',
    String(s.scale),
    '--seed',
    String(s.seed),
    '--workloads',
    segment.workloads.join(','),
    '--agents',
    segment.agents.join(','),
    '--indexes',
    STUDY.indexes.join(','),
    '--iterations',
    String(more.iterations ?? s.iterations),
    '--duration',
    `${s.durationMs}ms`,
    ...(sizes.length ? ['--duration-at', sizes.map(([agents, ms]) => `${agents}=${ms}ms`).join(',')] : []),
    '--warmup',
    `${s.warmupMs}ms`,
    // the judgement, not the measurement: each file keeps it, and the findings judge by it
    ...(s.band ? ['--band', `${Number(((s.band - 1) * 100).toPrecision(12))}`] : []),
    '--out',
    more.out ?? segmentFile(segment, s.out),
  ];
}

export const segmentFile = (segment: StudySegment, out: string) => join(out, `${segment.name}.json`);

/** A --peer value as a segment's file records it, NAME=COMMAND (the default command when none is given). */
const peerGiven = (value: string) => {
  const { launcher, given } = parsePeer(value);
  return `${launcher.name}=${given}`;
};

/**
 * A segment's file as a rerun finds it: `done` (complete, of these settings: skipped), `partial`
 * or absent (run again), or `other` (a study of other settings, which a rerun must not overwrite).
 */
export function segmentState(
  segment: StudySegment,
  s: StudySettings,
): { state: 'done'; result: ResultFile } | { state: 'todo' } | { state: 'other'; why: string } {
  const file = segmentFile(segment, s.out);
  if (!existsSync(file)) return { state: 'todo' };
  let result: ResultFile;
  try {
    result = readResultFile(file);
  } catch {
    return { state: 'todo' }; // cut short while written
  }
  if (result.partial) return { state: 'todo' };
  const c = result.config;
  const differs = [
    ...otherData(c, s),
    c.iterations !== s.iterations && `${c.iterations} iterations`,
    c.durationMs !== s.durationMs && `${c.durationMs} ms steps`,
    c.workloads.join(',') !== segment.workloads.join(',') && `workloads ${c.workloads.join(', ')}`,
    c.agents.join(',') !== segment.agents.join(',') && `agents ${c.agents.join(', ')}`,
  ].filter(Boolean);
  return differs.length ? { state: 'other', why: differs.join(', ') } : { state: 'done', result };
}

/** How a file's run differs from the settings in what it measured on: scale, seed, databases, peers. */
export function otherData(c: ResultFile['config'], s: StudySettings): string[] {
  const ours = c.targets.filter((t) => !t.peer);
  const peers = [...new Set(c.targets.flatMap((t) => (t.peer ? [`${t.peer.name}=${t.peer.command}`] : [])))];
  return [
    c.scale !== s.scale && `scale ${c.scale}`,
    c.seed !== s.seed && `seed ${c.seed}`,
    ours.map((t) => t.url).join(' ') !== s.dbs.map(redactUrl).join(' ') &&
      `databases ${ours.map((t) => t.url).join(', ')}`,
    peers.join(' ') !== s.peers.map(peerGiven).join(' ') && `peers ${peers.join(', ') || 'none'}`,
  ].filter((x): x is string => typeof x === 'string');
}
