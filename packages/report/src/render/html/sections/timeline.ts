import { failedCalls, goodput, type StepResult } from '@mcp-db-bench/contract';
import { int, rate } from '../../../format.js';
import { decode, summary } from '../../../histogram.js';
import { roundLabel } from '../../groups.js';
import { type SeriesSpec, slug } from '../charts.js';
import { MEANING, shade } from '../colors.js';
import { type Context, num, rateCell } from '../context.js';
import { intervalRates } from '../percentiles.js';
import type { Block, ReportSection } from '../types.js';

interface TimelinePoint {
  x: number;
  rate: number;
  p99Ms: number | null;
  /** load stages: the agents active in the interval, and the calls/s the schedule intended */
  agents: number | null;
  intended: number | null;
}

/** A round's steps laid end to end: interval points (x in seconds of measured time) and where each step begins. */
export function timeline(steps: readonly StepResult[]): {
  points: TimelinePoint[];
  markers: { x: number; label: string }[];
} {
  const points: TimelinePoint[] = [];
  const markers: { x: number; label: string }[] = [];
  let offsetMs = 0;
  for (const s of steps) {
    markers.push({ x: offsetMs / 1000, label: `${s.workload} × ${int(s.agents)}` });
    const rates = intervalRates(s);
    s.intervals.forEach((interval, i) => {
      const { startMs, lengthMs, rate } = rates[i]!;
      const h = decode(interval.histogram);
      points.push({
        x: (offsetMs + startMs + lengthMs / 2) / 1000,
        rate,
        p99Ms: h.totalCount ? h.getValueAtPercentile(99) / 1000 : null,
        agents: interval.agents ?? null,
        // rate stages record the calls intended in the interval
        intended: interval.rate === undefined ? null : interval.rate / (lengthMs / 1000),
      });
    });
    offsetMs += s.durationMs;
  }
  return { points, markers };
}

/**
 * Where each step begins, for runs overlaid on one timeline: the runs' markers once when they all
 * begin the same steps at the same seconds, else every run's own, named by its run (steps of
 * another duration, or another sweep, begin elsewhere: one run's lines would mislabel the other's).
 */
export function timelineMarkers(
  lines: readonly { name: (text: string) => string; markers: readonly { x: number; label: string }[] }[],
): { x: number; label: string }[] {
  const first = JSON.stringify(lines[0]?.markers ?? []);
  if (lines.every((l) => JSON.stringify(l.markers) === first)) return [...(lines[0]?.markers ?? [])];
  return lines.flatMap((l) => l.markers.map((m) => ({ x: m.x, label: l.name(m.label) }))).sort((a, b) => a.x - b.x);
}

export function timelineSection(ctx: Context): ReportSection {
  const rounds = [...new Set(ctx.runs.flatMap((r) => r.result.steps.map(roundLabel)))];
  const blocks = rounds.map((round): Block => {
    const lines = ctx.runs
      .map((run, i) => {
        const steps = run.result.steps.filter((s) => roundLabel(s) === round);
        return { run: i, color: steps[0] ? ctx.colorOf(i, steps[0]) : '', ...timeline(steps) };
      })
      .filter((l) => l.points.length);
    const xs = [...new Set(lines.flatMap((l) => l.points.map((p) => p.x)))].sort((a, b) => a - b);
    const series: SeriesSpec[] = [];
    const data: (number | null)[][] = [xs];
    const withAgents = lines.some((l) => l.points.some((p) => p.agents !== null));
    const withIntended = lines.some((l) => l.points.some((p) => p.intended !== null));
    for (const l of lines) {
      const at = (pick: (p: TimelinePoint) => number | null) =>
        xs.map((x) => {
          const p = l.points.find((q) => q.x === x);
          return p ? pick(p) : null;
        });
      series.push({ label: ctx.name(l.run, 'calls/s'), scale: 'rate', color: l.color });
      data.push(at((p) => p.rate));
      series.push({ label: ctx.name(l.run, 'p99 ms'), scale: 'ms', color: l.color, dash: true });
      data.push(at((p) => p.p99Ms));
      if (withIntended) {
        series.push({
          label: ctx.name(l.run, 'intended calls/s'),
          scale: 'rate',
          color: shade(l.color, 0, 2),
          stepped: true,
        });
        data.push(at((p) => p.intended));
      }
      if (withAgents) {
        series.push({ label: ctx.name(l.run, 'agents'), scale: 'agents', color: MEANING.agents, stepped: true });
        data.push(at((p) => p.agents));
      }
    }
    const rows = ctx.runs.flatMap((run, r) =>
      run.result.steps
        .filter((s) => roundLabel(s) === round)
        .map((s) => {
          const rates = intervalRates(s).map((x) => x.rate);
          return {
            cells: [
              ctx.name(r, s.workload),
              int(s.agents),
              int(s.iteration),
              rateCell(goodput(s)),
              rates.length ? `${rate(Math.min(...rates))}–${rate(Math.max(...rates))}` : '–',
              num(summary(decode(s.all.histogram)).p99 / 1000),
              int(failedCalls(s)),
            ],
          };
        }),
    );
    return {
      chart: {
        id: slug('timeline', round),
        title: `${round}: every second of every step`,
        x: { label: 'measured seconds' },
        axes: [
          { scale: 'rate', label: 'calls/s, higher is better' },
          { scale: 'ms', label: 'p99 ms, lower is better', log: 10, side: 'right' },
          ...(withAgents ? [{ scale: 'agents', label: 'agents', side: 'right' as const }] : []),
        ],
        series,
        data,
        markers: timelineMarkers(
          lines.map((l) => ({ name: (text: string) => ctx.name(l.run, text), markers: l.markers })),
        ),
      },
      table: { head: ['step', 'agents', 'iteration', 'calls/s', 'per-second range', 'p99 ms', 'errors'], rows },
    };
  });
  return {
    id: 'timeline',
    title: 'Over time',
    note:
      'Each step’s measured seconds, one after another (warm-ups left out): calls/s in each 1-second interval and ' +
      'that interval’s p99 (dashed, in the round’s colour). A vertical line marks where a step begins (overlaid runs whose steps begin apart: each ' +
      'run’s own lines, named by its run). With load stages, the agents of each interval (grey) and, ramping a ' +
      'rate, the calls/s intended (pale) are stepped lines.',
    blocks,
  };
}
