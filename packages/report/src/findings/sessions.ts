import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { ms } from '../format.js';
import { summarize } from '../histogram.js';
import { MEANING, shade } from '../render/html/colors.js';
import type { Cell } from '../render/html/types.js';
import { barChart, commandsOf, type Finding, rateCell, stepsRate, targetsOf } from './common.js';

/**
 * Session start per database: the discovery a session begins with (cold and warm), whole
 * sessions per second, and the handshake alone (initialize + tools/list, no database) per second.
 * The ratios between databases are in the engines' finding.
 */
export function sessionStart(files: readonly ResultFile[]): Finding | undefined {
  const used = files.filter((f) => f.config.workloads.includes('session-init'));
  const source = used.length ? used : files.filter((f) => f.sessionInit.length);
  if (!source.length) return undefined;
  const targets = targetsOf(source);
  const f = source[0]!;
  // the handshake: its own segment's file, or (a study before the split) the sessions' file
  const h = files.find((x) => x.config.workloads.includes('handshake'));
  const rated = [
    { file: f, workload: 'session-init', unit: 'sessions/s' },
    ...(h ? [{ file: h, workload: 'handshake', unit: 'handshakes/s' }] : []),
  ]
    .map((r) => ({ ...r, agents: agentsOf(r.file, r.workload) }))
    .filter((r) => r.agents.length);
  // p50 ms of each measurement: cold and warm connections, on the server just started and later
  const p50 = (stats: { histogram: string } | undefined) =>
    stats === undefined ? undefined : summarize(stats.histogram).p50 / 1000;
  const cell = (x: number | undefined): Cell => (x === undefined ? '–' : { text: ms(x * 1000), value: x });
  const columns: Record<'cold' | 'warm' | 'coldLater' | 'warmLater', (number | null)[]> = {
    cold: [],
    warm: [],
    coldLater: [],
    warmLater: [],
  };
  const rows: Cell[][] = targets.map((t) => {
    const init = f.sessionInit.find((s) => s.target === t.label);
    const measured = {
      cold: p50(init?.cold),
      warm: p50(init?.warm),
      coldLater: p50(init?.later?.cold),
      warmLater: p50(init?.later?.warm),
    };
    for (const [k, x] of Object.entries(measured)) columns[k as keyof typeof columns].push(x ?? null);
    return [
      t.label,
      cell(measured.cold),
      cell(measured.coldLater),
      cell(measured.warm),
      cell(measured.warmLater),
      ...rated.map((r) => rates(r.file, t.label, r.workload, r.agents)),
    ];
  });
  return {
    id: 'sessions',
    title: 'Session start per database',
    note:
      'A session begins by discovering the schema: p50 ms on a new connection (cold) and on one kept open (warm), ' +
      'each timed on the server just started (first) and again in the last pass on the same server (later: its ' +
      'code paths compiled, typically 1.5 to 2 times faster; – in a file of one pass); whole sessions per second ' +
      'with that many agents starting sessions at once (beside a fleet, a newcomer waits for its turn), and ' +
      'handshakes alone (initialize and tools/list, no database) per second, medians of the iterations. Each ' +
      'database against the others, with intervals: "Engines compared".',
    head: [
      'database',
      'cold p50 ms, first',
      'cold p50 ms, later',
      'warm p50 ms, first',
      'warm p50 ms, later',
      ...rated.map((r) => `${r.unit}, ${r.agents.join(' / ')} agent(s)`),
    ],
    rows,
    chart: barChart(
      'sessions',
      'Session start p50 (ms)',
      targets.map((t) => t.label),
      { label: 'ms' },
      [
        { label: 'cold, first', color: MEANING.baseline, values: columns.cold },
        { label: 'cold, later', color: shade(MEANING.baseline, 0, 2), values: columns.coldLater },
        { label: 'warm, first', color: MEANING.optimized, values: columns.warm },
        { label: 'warm, later', color: shade(MEANING.optimized, 0, 2), values: columns.warmLater },
      ],
    ),
    commands: commandsOf(h && h !== f ? [f, h] : [f]),
  };
}

/** The agent counts a file measured a workload at. */
const agentsOf = (file: ResultFile, workload: string) =>
  [...new Set(file.steps.filter((s) => s.workload === workload).map((s) => s.agents))].sort((a, b) => a - b);

/**
 * A workload's calls/s with that many agents, medians of the iterations, under the last index set
 * that measured it (the handshake runs under the first only).
 */
function rate(file: ResultFile, target: string, workload: string, agents: number) {
  const steps = file.steps.filter((s) => s.target === target && s.workload === workload && s.agents === agents);
  const set = [...file.config.indexes, null].reverse().find((p) => steps.some((s) => s.indexes === p));
  return stepsRate(steps.filter((s: StepResult) => s.indexes === (set ?? null)));
}

/** One cell for every agent count, so that the table fits a page. */
function rates(file: ResultFile, target: string, workload: string, agents: readonly number[]): Cell {
  const cells = agents.map((n) => rateCell(rate(file, target, workload, n)));
  return cells.length === 1 ? cells[0]! : cells.map((c) => (typeof c === 'string' ? c : c.text)).join(' / ');
}
