import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { int, ms, pct, rate } from '../format.js';
import { merge, summary } from '../histogram.js';
import { roundLabel } from './groups.js';
import type { Section } from './table.js';

/**
 * Each operation of a workload that has several, per step (its iterations merged): its calls/s,
 * its share of the step's calls and of the agents' time in calls, p50 and p99. A mix's headline
 * hides which kind of call it was: a whole-table grouping that is a quarter of the calls can be
 * nearly all of the time, and so sets the workload's calls/s.
 */
export function operationsSection(result: ResultFile): Section {
  const rows: string[][] = [];
  for (const steps of stepGroups(result.steps)) {
    const first = steps[0]!;
    const ops = [...new Set(steps.flatMap((s) => Object.keys(s.operations)))].sort();
    if (ops.length < 2) continue;
    const seconds = steps.reduce((a, s) => a + s.durationMs, 0) / 1000;
    const stats = ops.map((op) => ({
      op,
      ...summary(merge(steps.flatMap((s) => (s.operations[op] ? [s.operations[op].histogram] : [])))),
    }));
    const calls = stats.reduce((a, s) => a + s.count, 0);
    const time = stats.reduce((a, s) => a + s.count * s.mean, 0);
    for (const [i, s] of stats.entries()) {
      rows.push([
        i === 0 ? roundLabel(first) : '',
        i === 0 ? first.workload : '',
        i === 0 ? int(first.agents) : '',
        s.op,
        seconds > 0 ? rate(s.count / seconds) : '–',
        calls > 0 ? pct(s.count / calls) : '–',
        time > 0 ? pct((s.count * s.mean) / time) : '–',
        ms(s.p50),
        ms(s.p99),
      ]);
    }
  }
  return {
    title: 'Operations: each kind of call within a workload',
    note: 'share of calls and of the time the agents spent in calls; iterations merged; workloads of one operation are in the table above',
    head: ['target', 'workload', 'agents', 'operation', 'calls/s', 'calls', 'time', 'p50 ms', 'p99 ms'],
    rows,
  };
}

/** A step's iterations together, in the file's order. */
function stepGroups(steps: readonly StepResult[]): StepResult[][] {
  const groups = new Map<string, StepResult[]>();
  for (const s of steps) {
    const key = `${s.target}\u0000${s.indexes}\u0000${s.workload}\u0000${s.agents}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.values()];
}
