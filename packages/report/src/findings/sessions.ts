import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { ms } from '../format.js';
import { summarize } from '../histogram.js';
import { MEANING } from '../render/html/colors.js';
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
  const rate = (target: string, workload: string) => {
    const steps = f.steps.filter((s) => s.target === target && s.workload === workload);
    // the last index set that measured it: the handshake runs under the first only
    const set = [...f.config.indexes, null].reverse().find((p) => steps.some((s) => s.indexes === p));
    return stepsRate(steps.filter((s: StepResult) => s.indexes === (set ?? null)));
  };
  const cold: (number | null)[] = [];
  const warm: (number | null)[] = [];
  const rows: Cell[][] = targets.map((t) => {
    const init = f.sessionInit.find((s) => s.target === t.label);
    const c = init ? summarize(init.cold.histogram).p50 / 1000 : undefined;
    const w = init ? summarize(init.warm.histogram).p50 / 1000 : undefined;
    cold.push(c ?? null);
    warm.push(w ?? null);
    return [
      t.label,
      c === undefined ? '–' : { text: ms(c * 1000), value: c },
      w === undefined ? '–' : { text: ms(w * 1000), value: w },
      rateCell(rate(t.label, 'session-init')),
      rateCell(rate(t.label, 'handshake')),
    ];
  });
  return {
    id: 'sessions',
    title: 'Session start per database',
    note:
      'A session begins by discovering the schema: p50 ms on a new connection (cold) and on one kept open (warm); ' +
      'whole sessions per second at 1 agent, and handshakes alone (initialize and tools/list, no database) per ' +
      'second, medians of the iterations. Each database against the others, with intervals: "Engines compared".',
    head: ['database', 'cold p50 ms', 'warm p50 ms', 'sessions/s', 'handshakes/s'],
    rows,
    chart: barChart(
      'sessions',
      'Session start p50 (ms)',
      targets.map((t) => t.label),
      { label: 'ms' },
      [
        { label: 'cold', color: MEANING.baseline, values: cold },
        { label: 'warm', color: MEANING.optimized, values: warm },
      ],
    ),
    commands: commandsOf([f]),
  };
}
