import { failedCalls, type OperationStats, type StepMeasurement, type StepResult } from '@mcp-db-bench/contract';
import { encode, merge } from './histogram.js';

/**
 * One step's slices as one measurement: counts add up, histograms merge exactly, intervals
 * follow one another, and the client's and server's figures are weighted by the calls (CPU per
 * call) or the time (utilisation) they came from.
 */
export function combineSlices(slices: readonly StepMeasurement[]): StepMeasurement {
  const [first] = slices;
  if (first === undefined) throw new RangeError('no slices to combine');
  if (slices.length === 1) return first;
  const completed = (s: StepMeasurement) => s.calls + failedCalls(s);
  const calls = slices.reduce((n, s) => n + completed(s), 0);
  const durationMs = sum(slices.map((s) => s.durationMs));
  let offset = 0;
  const intervals = slices.flatMap((s) => {
    const shifted = s.intervals.map((i) => ({ ...i, atMs: i.atMs + offset }));
    offset += s.durationMs;
    return shifted;
  });
  return {
    mode: first.mode,
    rate: first.rate,
    durationMs,
    calls: sum(slices.map((s) => s.calls)),
    errors: addUp(slices.map((s) => s.errors)),
    reinitialized: sumKnown(slices.map((s) => s.reinitialized)),
    operations: mergeOperations(slices.map((s) => s.operations)),
    all: mergeStats(slices.map((s) => s.all)),
    intervals,
    client: {
      cpuPerCallUs: calls > 0 ? sum(slices.map((s) => s.client.cpuPerCallUs * completed(s))) / calls : 0,
      cpuUtilization: durationMs > 0 ? sum(slices.map((s) => s.client.cpuUtilization * s.durationMs)) / durationMs : 0,
      eventLoopDelayP99Ms: Math.max(...slices.map((s) => s.client.eventLoopDelayP99Ms)),
      eventLoopDelayMaxMs: Math.max(...slices.map((s) => s.client.eventLoopDelayMaxMs)),
    },
    ...serverPerCall(slices, completed),
    openLoop: first.openLoop && {
      intended: sum(slices.map((s) => s.openLoop?.intended ?? 0)),
      late: sum(slices.map((s) => s.openLoop?.late ?? 0)),
      dropped: sum(slices.map((s) => s.openLoop?.dropped ?? 0)),
    },
    startedAt: first.startedAt,
    ...overrunOf(slices),
    ...commitsOf(slices),
    ...interferenceOf(slices),
    ...(first.sessionTime && {
      sessionTime: {
        thinkMs: sum(slices.map((s) => s.sessionTime?.thinkMs ?? 0)),
        callMs: sum(slices.map((s) => s.sessionTime?.callMs ?? 0)),
      },
    }),
  };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** The parts' commits added up (the same operation in each). */
export function commitsOf(parts: readonly Pick<StepMeasurement, 'commits'>[]): Pick<StepMeasurement, 'commits'> {
  const all = parts.flatMap((p) => (p.commits ? [p.commits] : []));
  if (all.length === 0) return {};
  return {
    commits: {
      op: all[0]!.op,
      committed: sum(all.map((c) => c.committed)),
      conflicts: sum(all.map((c) => c.conflicts)),
      failed: sum(all.map((c) => c.failed)),
    },
  };
}

/** The slices' overrun calls added up, and the longest any one of them ran past its end. */
export function overrunOf(parts: readonly Pick<StepMeasurement, 'overrun'>[]): Pick<StepMeasurement, 'overrun'> {
  const over = parts.flatMap((p) => (p.overrun ? [p.overrun] : []));
  if (over.length === 0) return {};
  return {
    overrun: {
      calls: sum(over.map((o) => o.calls)),
      lastEndedAfterMs: Math.max(...over.map((o) => o.lastEndedAfterMs)),
    },
  };
}

/** The slices' interference as one window: each share weighted by the capacity it was measured over; none unless every slice has it. */
export function interferenceOf(
  parts: readonly Pick<StepMeasurement, 'interference'>[],
): Pick<StepMeasurement, 'interference'> {
  if (!parts.every((p) => p.interference)) return {};
  const all = parts.map((p) => p.interference!);
  const capacityMs = sum(all.map((i) => i.capacityMs));
  const share = (key: 'otherCpuShare' | 'stealShare' | 'ownCpuShare') =>
    capacityMs > 0 ? Math.round((sum(all.map((i) => i[key] * i.capacityMs)) / capacityMs) * 1e4) / 1e4 : 0;
  return {
    interference: {
      otherCpuShare: share('otherCpuShare'),
      stealShare: share('stealShare'),
      ownCpuShare: share('ownCpuShare'),
      capacityMs,
    },
  };
}

/** The total of a count older result files lack: unknown when no part has it, else the parts that do. */
export const sumKnown = (xs: readonly (number | undefined)[]): number | undefined =>
  xs.some((x) => x !== undefined) ? xs.reduce<number>((a, b) => a + (b ?? 0), 0) : undefined;

/** The server's CPU per call over several measurements, weighted by their calls; none unless every one has it. */
export function serverPerCall<T extends Pick<StepMeasurement, 'server'>>(
  parts: readonly T[],
  completed: (p: T) => number,
): Pick<StepMeasurement, 'server'> {
  if (!parts.every((p) => p.server)) return {};
  const calls = sum(parts.map(completed));
  return {
    server: { cpuPerCallUs: calls > 0 ? sum(parts.map((p) => p.server!.cpuPerCallUs * completed(p))) / calls : 0 },
  };
}

export function addUp(records: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) for (const [k, n] of Object.entries(r)) out[k] = (out[k] ?? 0) + n;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

export function mergeStats(stats: readonly OperationStats[]): OperationStats {
  return { count: sum(stats.map((s) => s.count)), histogram: encode(merge(stats.map((s) => s.histogram))) };
}

export function mergeOperations(ops: readonly Record<string, OperationStats>[]): Record<string, OperationStats> {
  const names = [...new Set(ops.flatMap((o) => Object.keys(o)))].sort((a, b) => a.localeCompare(b));
  return Object.fromEntries(names.map((name) => [name, mergeStats(ops.flatMap((o) => (o[name] ? [o[name]] : [])))]));
}

/** A step as people name it: target, index round, workload, agents, and the iteration past the first. */
export const stepName = (s: Pick<StepResult, 'target' | 'indexes' | 'workload' | 'agents' | 'iteration'>): string =>
  `${s.target}${s.indexes ? ` (${s.indexes})` : ''} ${s.workload} × ${s.agents}${s.iteration > 1 ? ` iteration ${s.iteration}` : ''}`;
