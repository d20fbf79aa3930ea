import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { summarize } from '../histogram.js';
import { callsPerSecond, int, median, spread } from './numbers.js';
import type { Section } from './table.js';

/** How reports name the bare node:http echo floor. */
export const FLOOR_LABEL = 'bare node:http';

/**
 * floor: each target's own floor, measured in the turn right before it, so each is compared with
 * the floor of its moment.
 */
export const floorBefore = (target: string): string => `${FLOOR_LABEL} before ${target}`;

const ms = (us: number) => (us / 1000).toFixed(2);
const ratio = (n: number) => n.toFixed(2);
const key = (...parts: readonly unknown[]) => parts.join('\u0000');

/** Each of our steps beside the floor measured in the turns right before its own (floor's files have them). */
function pairs(steps: readonly StepResult[]): { ours: StepResult; floor: StepResult }[] {
  const floors = new Map(steps.map((s) => [key(s.target, s.workload, s.agents, s.iteration), s]));
  return steps.flatMap((ours) => {
    const floor = floors.get(key(floorBefore(ours.target), ours.workload, ours.agents, ours.iteration));
    return floor ? [{ ours, floor }] : [];
  });
}

/**
 * The protocol floor tables of a `floor` result file: our server against the bare node:http echo
 * measured right before it, session start, and what MCP adds to a driver's statement. None for
 * a file without floor pairs.
 */
export function floorSections(result: ResultFile): Section[] {
  const paired = pairs(result.steps);
  if (paired.length === 0) return [];
  const targets = [...new Set(paired.map((p) => p.ours.target))];
  return [pairedSection(result, paired), sessionSection(result, targets), costSection(result, targets)].filter(
    (s) => s.rows.length > 0,
  );
}

type Pair = ReturnType<typeof pairs>[number];

/** Our server beside the floor measured right before it, each step's iterations as median (min–max). */
function pairedSection(result: ResultFile, paired: readonly Pair[]): Section {
  const groups = new Map<string, Pair[]>();
  for (const p of paired) {
    const k = key(p.ours.target, p.ours.workload, p.ours.agents);
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  const rate = callsPerSecond;
  const rows = [...groups.values()].map((g) => {
    const { target, workload, agents } = g[0]!.ours;
    const ours = g.map((p) => summarize(p.ours.all.histogram));
    return [
      target,
      workload,
      int(agents),
      spread(
        g.map((p) => rate(p.ours)),
        int,
      ),
      spread(
        ours.map((o) => o.p50),
        ms,
      ),
      spread(
        ours.map((o) => o.p99),
        ms,
      ),
      spread(
        g.map((p) => rate(p.floor)),
        int,
      ),
      spread(
        g.map((p) => rate(p.ours) / rate(p.floor)),
        ratio,
      ),
      `${int(median(g.map((p) => p.ours.client.cpuPerCallUs)))} / ` +
        `${int(median(g.map((p) => p.floor.client.cpuPerCallUs)))}`,
    ];
  });
  const { config: c, environment: env } = result;
  return {
    title: 'Our server against the bare node:http echo floor, same run',
    note:
      `\`${c.command ?? 'mcp-db-bench floor'}\`: ${c.iterations} iterations of ${c.durationMs / 1000} s per step ` +
      `(in ${c.slices ?? 1} slices alternating with the floor), median (min–max); ` +
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
      'ratio',
      'client CPU µs/call (ours / floor)',
    ],
    rows,
  };
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
