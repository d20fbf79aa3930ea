/**
 * The shards of one run (`run --shard I/N`) as one result file, exactly: histograms added,
 * counts and errors summed, each step's per-second intervals aligned on wall-clock seconds, each
 * shard's machine kept. Files of different runs, duplicates and gaps are refused, naming the files.
 */
import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import {
  addUp,
  commitsOf,
  mergeOperations,
  mergeStats,
  overrunOf,
  serverPerCall,
  stepName,
  sumKnown,
} from './combine.js';

export interface ShardFile {
  /** how errors name it: the file's path */
  name: string;
  result: ResultFile;
}

/** Files that do not make one run; the message names them and says what differs. */
export class MergeError extends Error {}

/** Shards whose step windows opened further apart than this get a warning in the merged file. */
export const SPREAD_WARNING_MS = 50;

type Shard = ShardFile & { index: number; count: number; runId: string };

export function mergeShards(files: readonly ShardFile[]): ResultFile {
  const shards = checkShards(files);
  const ref = shards[0]!;
  const { index: _, ...shardConfig } = ref.result.config.shard!;
  const warnings: string[] = [];
  return {
    version: ref.result.version,
    tool: ref.result.tool,
    startedAt: shards.map((s) => s.result.startedAt).sort()[0]!,
    finishedAt: shards
      .map((s) => s.result.finishedAt)
      .sort()
      .at(-1)!,
    environment: ref.result.environment,
    config: { ...ref.result.config, shard: shardConfig },
    sessionInit: mergeSessionInit(shards),
    steps: mergeAllSteps(shards, warnings),
    decomposition: mergeDecomposition(shards),
    warnings: [...shards.flatMap((s) => s.result.warnings.map((w) => `shard ${s.index}: ${w}`)), ...warnings],
    skipped: unique(
      shards.flatMap((s) => s.result.skipped ?? []),
      (s) => `${s.target}\n${s.workload}`,
    ),
    shards: shards.map((s) => ({
      index: s.index,
      environment: s.result.environment,
      startedAt: s.result.startedAt,
      finishedAt: s.result.finishedAt,
    })),
    // shard 0 alone replays the sampled calls (answer agreement, token cost): the others would only repeat it
    ...(ref.result.agreement && { agreement: ref.result.agreement }),
    ...(ref.result.tokens && { tokens: ref.result.tokens }),
  };
}

/** Every shard of one run, once each, sorted by index; else a MergeError saying what is wrong. */
function checkShards(files: readonly ShardFile[]): Shard[] {
  if (files.length === 0) throw new MergeError('no shard files to merge');
  const shards = files.map((f): Shard => {
    const shard = f.result.config.shard;
    if (!shard)
      throw new MergeError(`${f.name} is not a shard: it has no config.shard (shards are written by run --shard I/N)`);
    if (shard.index === undefined) throw new MergeError(`${f.name} is already a merged run of ${shard.count} shards`);
    return { ...f, index: shard.index, count: shard.count, runId: shard.runId };
  });
  shards.sort((a, b) => a.index - b.index);
  const ref = shards[0]!;
  for (const s of shards.slice(1)) {
    const differ = configDifferences(ref.result.config, s.result.config);
    const [began, refBegan] = [s.result.config.shard!.startAt, ref.result.config.shard!.startAt];
    if (s.runId !== ref.runId || differ.length > 0 || s.count !== ref.count || began !== refBegan) {
      const why =
        differ.length > 0
          ? `configurations differ in ${differ.join(', ')}`
          : s.count !== ref.count
            ? `one has ${s.count} shards, the other ${ref.count}`
            : s.runId !== ref.runId
              ? 'their run ids differ (another --run-id or start instant)'
              : `they began at different instants (${began} and ${refBegan}): a --run-id used for two runs?`;
      throw new MergeError(
        `${s.name} (shard ${s.index} of run ${s.runId}) is from another run than ${ref.name} (shard ${ref.index} of run ${ref.runId}): ${why}`,
      );
    }
  }
  for (const [i, s] of shards.entries()) {
    const twin = shards[i + 1];
    if (twin?.index === s.index) throw new MergeError(`shard ${s.index} is given twice: ${s.name} and ${twin.name}`);
  }
  const have = new Set(shards.map((s) => s.index));
  const missing = Array.from({ length: ref.count }, (_, i) => i).filter((i) => !have.has(i));
  if (missing.length > 0)
    throw new MergeError(
      `run ${ref.runId} has ${ref.count} shards (0 to ${ref.count - 1}): shard${missing.length > 1 ? 's' : ''} ${missing.join(', ')} missing`,
    );
  return shards;
}

/** Configuration fields that differ, the shard's own index aside. */
function configDifferences(a: ResultFile['config'], b: ResultFile['config']): string[] {
  const strip = (c: ResultFile['config']) => ({ ...c, shard: c.shard && { ...c.shard, index: undefined } });
  const [x, y] = [strip(a), strip(b)] as Record<string, unknown>[];
  const keys = [...new Set([...Object.keys(x!), ...Object.keys(y!)])];
  return keys.filter((k) => k !== 'shard' && JSON.stringify(x![k]) !== JSON.stringify(y![k]));
}

const stepKey = (s: StepResult) => JSON.stringify([s.target, s.indexes, s.workload, s.agents, s.iteration]);

function mergeAllSteps(shards: readonly Shard[], warnings: string[]): StepResult[] {
  const ref = shards[0]!;
  const byKey = shards.map((s) => new Map(s.result.steps.map((step) => [stepKey(step), step])));
  for (const [i, s] of shards.entries()) {
    for (const step of s.result.steps) {
      const missing = shards.find((_, j) => !byKey[j]!.has(stepKey(step)));
      if (missing)
        throw new MergeError(
          `${missing.name} has no step ${stepName(step)}, which ${shards[i]!.name} has: the shards did not run the same steps`,
        );
    }
  }
  return ref.result.steps.map((step) => {
    const parts = byKey.map((m) => m.get(stepKey(step))!);
    const merged = mergeSteps(parts, shards);
    const opened = parts.map((p) => p.startedAt!);
    const spread = Math.max(...opened) - Math.min(...opened);
    if (spread > SPREAD_WARNING_MS)
      warnings.push(
        `the shards opened ${stepName(step)} up to ${Math.round(spread)} ms apart: their intervals align to the nearest second`,
      );
    return merged;
  });
}

/** One step of every shard: the same key, its measurements added, its seconds aligned on the wall clock. */
export function mergeSteps(parts: readonly StepResult[], shards: readonly { name: string }[]): StepResult {
  const first = parts[0]!;
  const untimed = parts.findIndex((p) => p.startedAt === undefined);
  if (untimed !== -1)
    throw new MergeError(
      `${shards[untimed]!.name}: step ${stepName(first)} has no startedAt, so its seconds cannot be aligned (written by an older mcp-db-bench)`,
    );
  const base = Math.min(...parts.map((p) => p.startedAt!));
  const completed = (s: StepResult) => s.calls + Object.values(s.errors).reduce((a, b) => a + b, 0);
  const calls = sum(parts.map(completed));
  const open = parts.some((p) => p.openLoop);
  return {
    target: first.target,
    indexes: first.indexes,
    workload: first.workload,
    agents: first.agents,
    iteration: first.iteration,
    mode: first.mode,
    rate: first.rate === null ? null : sum(parts.map((p) => p.rate ?? 0)),
    durationMs: Math.max(...parts.map((p) => p.durationMs)),
    calls: sum(parts.map((p) => p.calls)),
    errors: addUp(parts.map((p) => p.errors)),
    reinitialized: sumKnown(parts.map((p) => p.reinitialized)),
    operations: mergeOperations(parts.map((p) => p.operations)),
    all: mergeStats(parts.map((p) => p.all)),
    intervals: alignIntervals(parts, base),
    client: {
      cpuPerCallUs: calls > 0 ? sum(parts.map((p) => p.client.cpuPerCallUs * completed(p))) / calls : 0,
      // each shard is its own process: the busiest one says whether a load generator held the run back
      cpuUtilization: Math.max(...parts.map((p) => p.client.cpuUtilization)),
      eventLoopDelayP99Ms: Math.max(...parts.map((p) => p.client.eventLoopDelayP99Ms)),
      eventLoopDelayMaxMs: Math.max(...parts.map((p) => p.client.eventLoopDelayMaxMs)),
    },
    // each shard reads the server it started
    ...serverPerCall(parts, completed),
    openLoop: open
      ? {
          intended: sum(parts.map((p) => p.openLoop?.intended ?? 0)),
          late: sum(parts.map((p) => p.openLoop?.late ?? 0)),
          dropped: sum(parts.map((p) => p.openLoop?.dropped ?? 0)),
        }
      : null,
    ...overrunOf(parts),
    ...commitsOf(parts),
    startedAt: base,
  };
}

type Interval = StepResult['intervals'][number];

/** Each shard's seconds on the wall clock, to the nearest whole second after the earliest opening; a second's figures add up. */
function alignIntervals(parts: readonly StepResult[], base: number): Interval[] {
  const seconds = new Map<number, Interval[]>();
  for (const p of parts) {
    for (const i of p.intervals) {
      const at = Math.round((p.startedAt! - base + i.atMs) / 1000) * 1000;
      seconds.set(at, [...(seconds.get(at) ?? []), i]);
    }
  }
  return [...seconds.entries()]
    .sort(([a], [b]) => a - b)
    .map(([atMs, group]) => {
      const h = mergeStats(group.map((i) => ({ count: 0, histogram: i.histogram }))).histogram;
      const optional = (field: 'agents' | 'rate') =>
        group.some((i) => i[field] !== undefined) ? { [field]: sum(group.map((i) => i[field] ?? 0)) } : {};
      return {
        atMs,
        calls: sum(group.map((i) => i.calls)),
        errors: sum(group.map((i) => i.errors)),
        histogram: h,
        ...optional('agents'),
        ...optional('rate'),
      };
    });
}

/** Session starts of every shard, entry by entry per target and index set. */
function mergeSessionInit(shards: readonly Shard[]): ResultFile['sessionInit'] {
  type Entry = ResultFile['sessionInit'][number];
  const key = (e: Entry) => `${e.target}\n${e.indexes}`;
  const groups = (s: Shard) => {
    const g = new Map<string, Entry[]>();
    for (const e of s.result.sessionInit) g.set(key(e), [...(g.get(key(e)) ?? []), e]);
    return g;
  };
  const all = shards.map(groups);
  const seen = new Map<string, number>();
  return shards[0]!.result.sessionInit.map((e) => {
    const k = seen.get(key(e)) ?? 0;
    seen.set(key(e), k + 1);
    const parts = all.flatMap((g) => g.get(key(e))?.[k] ?? []);
    const full = parts.flatMap((p) => p.full ?? []);
    return {
      ...e,
      cold: mergeStats(parts.map((p) => p.cold)),
      warm: mergeStats(parts.map((p) => p.warm)),
      ...(full.length ? { full: mergeStats(full) } : {}),
    };
  });
}

/** The cost decomposition (shard 0 alone measures it; added up if several did). */
function mergeDecomposition(shards: readonly Shard[]): ResultFile['decomposition'] {
  type Entry = ResultFile['decomposition'][number];
  const entries = shards.flatMap((s) => s.result.decomposition);
  const key = (e: Entry) => `${e.target}\n${e.operation}`;
  return unique(entries, key).map((e) => {
    const parts = entries.filter((x) => key(x) === key(e));
    return {
      ...e,
      raw: mergeStats(parts.map((p) => p.raw)),
      echo: mergeStats(parts.map((p) => p.echo)),
      full: mergeStats(parts.map((p) => p.full)),
    };
  });
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function unique<T>(xs: readonly T[], key: (x: T) => string): T[] {
  const seen = new Set<string>();
  return xs.filter((x) => !seen.has(key(x)) && seen.add(key(x)));
}
