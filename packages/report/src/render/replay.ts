import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { int, ms, pct, rate } from '../format.js';
import { merge, summary } from '../histogram.js';
import { roundLabel } from './groups.js';
import type { Section } from './table.js';

/**
 * `run --replay`: each request the trace's host made, by method and tool, and where the agents'
 * session time went: think time, and calls (the server and the network, measured together at the
 * client: no server reports its own time).
 */
export function replaySections(result: ResultFile): Section[] {
  const replay = result.config.replay;
  if (!replay) return [];
  const steps = result.steps.filter((s) => s.sessionTime || Object.keys(s.operations).length);
  return [methodSection(steps), timeSection(steps, replay.think)];
}

/** The label `run --target URL` gives a server it names no other way. */
const UNNAMED = 'target';

/**
 * A replay's rows named by the trace it replayed (`db.jsonl`, or `db.jsonl on sqlite` where the run
 * named the server): every report renders this view of a result; other results are as they are.
 */
export function byTrace(result: ResultFile): ResultFile {
  const replay = result.config.replay;
  if (!replay) return result;
  const name = (target: string) => (target === UNNAMED ? replay.trace : `${replay.trace} on ${target}`);
  const each = <T extends { target: string }>(list: readonly T[] | undefined) =>
    list?.map((x) => ({ ...x, target: name(x.target) }));
  return {
    ...result,
    config: { ...result.config, targets: result.config.targets.map((t) => ({ ...t, label: name(t.label) })) },
    steps: each(result.steps)!,
    sessionInit: each(result.sessionInit)!,
    decomposition: each(result.decomposition)!,
    skipped: each(result.skipped),
    tokens: each(result.tokens),
    memory: each(result.memory),
    agreement: result.agreement?.map((a) => ({ ...a, target: name(a.target), reference: name(a.reference) })),
    comparisons: result.comparisons?.map((c) => ({
      ...c,
      base: { ...c.base, target: name(c.base.target) },
      other: { ...c.other, target: name(c.other.target) },
    })),
  };
}

/** What a table's rows are named by: the server measured, or in a replay the trace (byTrace). */
export const rowsNamedBy = (result: ResultFile) => (result.config.replay ? 'trace' : 'target');

/** The line the report header gives a replay. */
export function replayLine(replay: NonNullable<ResultFile['config']['replay']>): string {
  return (
    `replayed ${replay.trace}: ${int(replay.sessions)} session(s), ${int(replay.requests)} requests recorded against ` +
    `${replay.recordedTarget} (values ${replay.values}), think time × ${replay.think}` +
    (replay.streams ? `; ${int(replay.streams)} GET stream(s) not replayed` : '')
  );
}

/** A part of the agents' time as a share of it. */
const share = (part: number, whole: number) => (whole > 0 ? pct(part / whole) : '–');
const name = (s: StepResult) =>
  `${roundLabel(s)} × ${int(s.agents)}${s.iteration > 1 ? ` (iteration ${int(s.iteration)})` : ''}`;

function methodSection(steps: readonly StepResult[]): Section {
  return {
    title: 'Replay: latency per method and tool (every request the recorded hosts sent, notifications included)',
    head: ['step', 'method or tool', 'calls', 'calls/s', 'p50 ms', 'p95 ms', 'p99 ms'],
    rows: steps.flatMap((s) =>
      Object.entries(s.operations).map(([op, stats]) => {
        const h = summary(merge([stats.histogram]));
        return [
          name(s),
          op,
          int(stats.count),
          rate(stats.count / (s.durationMs / 1000)),
          ms(h.p50),
          ms(h.p95),
          ms(h.p99),
        ];
      }),
    ),
  };
}

function timeSection(steps: readonly StepResult[], think: number): Section {
  return {
    title: `Replay: where the session time went (agents × measured time; think time scaled × ${think})`,
    note:
      'server + network: each request from its first byte sent to its answer read, at the client; the two are ' +
      'measured together (no server reports its own time). client: the rest, the load generator building and ' +
      'reading messages',
    head: ['step', 'session time s', 'think', 'server + network', 'client', 'think s', 'server + network s'],
    rows: steps
      .filter((s) => s.sessionTime)
      .map((s) => {
        const total = s.agents * s.durationMs;
        const { thinkMs, callMs } = s.sessionTime!;
        return [
          name(s),
          (total / 1000).toFixed(1),
          share(thinkMs, total),
          share(callMs, total),
          share(Math.max(0, total - thinkMs - callMs), total),
          (thinkMs / 1000).toFixed(2),
          (callMs / 1000).toFixed(2),
        ];
      }),
  };
}
