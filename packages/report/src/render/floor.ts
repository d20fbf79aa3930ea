import { type Comparison, goodput, type ResultFile, type StepResult } from '@mcp-db-bench/contract';
import { type Cell, comparisonsOf, floorBefore, sidesOf } from '../comparisons.js';
import { int, median, ms, ratio, spread } from '../format.js';
import { summarize } from '../histogram.js';
import { judged } from '../verdicts.js';
import { ratioLegend } from './legend.js';
import type { Section } from './table.js';

const key = (...parts: readonly unknown[]) => parts.join('\u0000');

/** Each of our steps' groups beside the floor measured in the turns right before its own (floor's files have them). */
const floorComparisons = (result: ResultFile): Comparison[] =>
  comparisonsOf(result).filter((c) => c.kind === 'floor' && c.base.target === floorBefore(c.other.target));

/**
 * The protocol floor tables of a `floor` result file: our server against the bare node:http echo
 * measured right before it, session start, and what MCP adds to a driver's statement. None for
 * a file without floor pairs.
 */
export function floorSections(result: ResultFile): Section[] {
  const paired = floorComparisons(result);
  if (paired.length === 0) return [];
  const targets = [...new Set(paired.map((c) => c.other.target))];
  return [pairedSection(result, paired), sessionSection(result, targets), costSection(result, targets)].filter(
    (s) => s.rows.length > 0,
  );
}

/** Our server beside the floor measured right before it, each step's iterations as median (min–max). */
function pairedSection(result: ResultFile, paired: readonly Comparison[]): Section {
  const rows = paired.map((c) => {
    const { base, other } = sidesOf(c);
    const of = (cell: Cell) =>
      result.steps.filter(
        (s) =>
          key(s.target, s.indexes, s.workload, s.agents) === key(cell.target, cell.indexes, cell.workload, cell.agents),
      );
    const ours = of(other);
    const floor = of(base);
    const p = ours.map((s) => summarize(s.all.histogram));
    return [
      other.target,
      other.workload,
      int(other.agents),
      spread(ours.map(goodput), int),
      spread(
        p.map((o) => o.p50),
        ms,
      ),
      spread(
        p.map((o) => o.p99),
        ms,
      ),
      spread(floor.map(goodput), int),
      ratio(judged(result).of(c)),
      bothSides(ours, floor, (s) => s.client.cpuPerCallUs),
      bothSides(ours, floor, (s) => s.server?.cpuPerCallUs),
    ];
  });
  const { config: c, environment: env } = result;
  return {
    title: 'Our server against the bare node:http echo floor, same run',
    note:
      `\`${c.command ?? 'mcp-db-bench floor'}\`: ${c.iterations} iterations of ${c.durationMs / 1000} s per step ` +
      `(in ${c.slices ?? 1} slices alternating with the floor), median (min–max); ratio: ours over the floor, ${ratioLegend(judged(result), c.iterations)}; ` +
      `server with ${c.workers ?? 1} worker process(es); ` +
      `${env.cpus} × ${env.cpuModel}, Node ${env.node}, load average ` +
      `${env.loadAverage.map((l) => l.toFixed(2)).join(' ')}`,
    head: [
      'database and era',
      'workload',
      'agents',
      'calls/s',
      'p50 ms',
      'p99 ms',
      'echo floor calls/s',
      'ratio to the floor',
      'client CPU µs/call (ours / floor)',
      'server CPU µs/call (ours / floor)',
    ],
    rows,
  };
}

/** A per-call figure's median for our server and for the floor, `ours / floor`; `–` where a file lacks it. */
function bothSides(
  ours: readonly StepResult[],
  floor: readonly StepResult[],
  of: (s: StepResult) => number | undefined,
): string {
  const side = (steps: readonly StepResult[]) => {
    const values = steps.map(of).filter((v): v is number => v !== undefined);
    return values.length ? int(median(values)) : '–';
  };
  return `${side(ours)} / ${side(floor)}`;
}

/** Session start on each of our targets (the floor has none). */
function sessionSection(result: ResultFile, targets: readonly string[]): Section {
  const sessions = result.sessionInit.filter((s) => targets.includes(s.target) && s.full);
  return {
    title:
      'Session init (warm): initialize and initialized (2025) or discover (2026), tools/list, list_tables, ' +
      "describe_table for the task's 3 tables; and for every table",
    head: ['database and era', 'p50 ms', 'p99 ms', 'every table p50 ms'],
    rows: targets.map((t) => {
      const mine = sessions
        .filter((s) => s.target === t)
        .map((s) => ({ warm: summarize(s.warm.histogram), full: summarize(s.full!.histogram) }));
      return [
        t,
        spread(
          mine.map((s) => s.warm.p50),
          ms,
        ),
        spread(
          mine.map((s) => s.warm.p99),
          ms,
        ),
        spread(
          mine.map((s) => s.full.p50),
          ms,
        ),
      ];
    }),
  };
}

/** What MCP adds to the driver's own statement, per target and operation. */
function costSection(result: ResultFile, targets: readonly string[]): Section {
  const costs = result.decomposition.filter((d) => targets.includes(d.target));
  return {
    title:
      'What MCP adds to a call, per engine (1 agent, p50): the same statement through the driver alone, and as the ' +
      'tool call',
    head: ['database and era', 'operation', 'driver alone µs', 'tool call µs', 'MCP adds µs'],
    rows: [...new Set(costs.map((d) => key(d.target, d.operation)))].map((k) => {
      const mine = costs
        .filter((d) => key(d.target, d.operation) === k)
        .map((d) => ({ raw: summarize(d.raw.histogram).p50, full: summarize(d.full.histogram).p50 }));
      const { target, operation } = costs.find((d) => key(d.target, d.operation) === k)!;
      return [
        target,
        operation,
        spread(
          mine.map((d) => d.raw),
          int,
        ),
        spread(
          mine.map((d) => d.full),
          int,
        ),
        spread(
          mine.map((d) => d.full - d.raw),
          int,
        ),
      ];
    }),
  };
}
