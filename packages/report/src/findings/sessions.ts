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
  // whole sessions and handshakes per second at each agent count the file measured them at
  const agents = [...new Set(f.steps.filter((s) => s.workload === 'session-init').map((s) => s.agents))].sort(
    (a, b) => a - b,
  );
  const rate = (target: string, workload: string, n: number) => {
    const steps = f.steps.filter((s) => s.target === target && s.workload === workload && s.agents === n);
    // the last index set that measured it: the handshake runs under the first only
    const set = [...f.config.indexes, null].reverse().find((p) => steps.some((s) => s.indexes === p));
    return stepsRate(steps.filter((s: StepResult) => s.indexes === (set ?? null)));
  };
  // one cell for every agent count, so that the table fits a page
  const rates = (target: string, workload: string): Cell => {
    const cells = agents.map((n) => rateCell(rate(target, workload, n)));
    return cells.length === 1 ? cells[0]! : cells.map((c) => (typeof c === 'string' ? c : c.text)).join(' / ');
  };
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
      ...(agents.length ? [rates(t.label, 'session-init'), rates(t.label, 'handshake')] : []),
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
      ...(agents.length ? ['sessions/s', 'handshakes/s'].map((h) => `${h}, ${agents.join(' / ')} agent(s)`) : []),
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
    commands: commandsOf([f]),
  };
}
