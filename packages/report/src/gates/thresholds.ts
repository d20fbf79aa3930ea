import type { ResultFile, StepResult } from '@mcp-db-bench/contract';
import { int } from '../format.js';
import { merge, summary } from '../histogram.js';
import { groupSteps, medianGoodput } from '../render/groups.js';

/**
 * Pass/fail limits on a run, for CI: `run --threshold 'point-read:p99<5ms'`. The grammar:
 *
 *   [WORKLOAD[@AGENTS]:]METRIC OP VALUE
 *
 * METRIC is a latency (p50, p90, p95, p99, p99.9, mean, max; VALUE in ms unless it ends in us or
 * s), `errors` (the share of calls that failed; VALUE ends in %) or `calls/s` (goodput, the median
 * over iterations). OP is <, <=, > or >=. Without a workload a threshold holds for every step.
 * Latencies are read from the iterations' merged histogram, as the report reads them.
 */
export interface Threshold {
  /** as the user wrote it */
  text: string;
  workload?: string;
  agents?: number;
  metric: Metric;
  op: Op;
  /** microseconds for a latency, a fraction for errors, calls per second for calls/s */
  limit: number;
}

type Op = '<' | '<=' | '>' | '>=';
const LATENCIES = { p50: 50, p90: 90, p95: 95, p99: 99, 'p99.9': 99.9, mean: -1, max: 100 } as const;
type Metric = keyof typeof LATENCIES | 'errors' | 'calls/s';

/** One threshold judged on one group of steps (target, indexes, workload, agents). */
export interface Verdict {
  threshold: Threshold;
  /** the steps it was judged on; undefined when it matched none */
  step?: { target: string; indexes: string | null; workload: string; agents: number };
  /** the measured value, in the threshold's unit */
  actual?: number;
  ok: boolean;
  /** one line: what held or failed, with the figures */
  line: string;
}

export class ThresholdSyntaxError extends Error {}

const SHAPE =
  /^(?:([a-z0-9-]+)(?:@(\d+))?:)?\s*(p50|p90|p95|p99\.9|p99|mean|max|errors|calls\/s)\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)\s*(ms|us|µs|s|%)?$/i;

/** Parses one `--threshold`; throws ThresholdSyntaxError with the grammar on a mistake. */
export function parseThreshold(text: string, workloads: readonly string[]): Threshold {
  const m = SHAPE.exec(text.trim());
  const grammar = `expected [WORKLOAD[@AGENTS]:]METRIC OP VALUE, e.g. point-read:p99<5ms, errors<0.1%, filtered@10:calls/s>1000 (METRIC: ${[...Object.keys(LATENCIES), 'errors', 'calls/s'].join(', ')})`;
  if (!m) throw new ThresholdSyntaxError(`--threshold ${JSON.stringify(text)}: ${grammar}`);
  const [, workload, agents, metricText, op, number, unit] = m;
  if (workload !== undefined && !workloads.includes(workload)) {
    throw new ThresholdSyntaxError(
      `--threshold ${JSON.stringify(text)}: no workload named ${workload} (workloads: ${workloads.join(', ')})`,
    );
  }
  const metric = metricText!.toLowerCase() as Metric;
  const value = Number(number);
  const wrongUnit = (want: string) =>
    new ThresholdSyntaxError(`--threshold ${JSON.stringify(text)}: ${metric} takes ${want}`);
  let limit: number;
  if (metric === 'errors') {
    if (unit !== '%') throw wrongUnit('a percentage, e.g. errors<0.1%');
    limit = value / 100;
  } else if (metric === 'calls/s') {
    if (unit !== undefined) throw wrongUnit('a number of calls per second, e.g. calls/s>1000');
    limit = value;
  } else {
    if (unit === '%') throw wrongUnit('a time: 5ms (the default unit), 800us or 1s');
    limit = value * (unit === 's' ? 1_000_000 : unit === 'us' || unit === 'µs' ? 1 : 1000);
  }
  return { text, workload, agents: agents === undefined ? undefined : Number(agents), metric, op: op as Op, limit };
}

/** Every threshold on every group of steps it names; one failed verdict per threshold that names none. */
export function checkThresholds(result: ResultFile, thresholds: readonly Threshold[]): Verdict[] {
  const groups = groupSteps(result.steps);
  const verdicts: Verdict[] = [];
  for (const threshold of thresholds) {
    const named = groups.filter(
      (g) => (threshold.workload ?? g.workload) === g.workload && (threshold.agents ?? g.agents) === g.agents,
    );
    if (named.length === 0) {
      const ran = [...new Set(groups.map((g) => `${g.workload}@${g.agents}`))].join(', ') || 'none';
      verdicts.push({
        threshold,
        ok: false,
        line: `FAIL ${threshold.text}: matched no step of this run (steps: ${ran})`,
      });
      continue;
    }
    for (const g of named) {
      const actual = measure(threshold.metric, g.steps, medianGoodput(g).median);
      const ok = holds(actual, threshold.op, threshold.limit);
      const step = { target: g.target, indexes: g.indexes, workload: g.workload, agents: g.agents };
      const where = `${g.target}${g.indexes ? ` (${g.indexes} indexes)` : ''} ${g.workload} at ${g.agents} agent${g.agents === 1 ? '' : 's'}`;
      verdicts.push({
        threshold,
        step,
        actual,
        ok,
        line: `${ok ? 'ok  ' : 'FAIL'} ${threshold.text}: ${where}: ${show(threshold.metric, actual)} (limit ${threshold.op} ${show(threshold.metric, threshold.limit)})`,
      });
    }
  }
  return verdicts;
}

function measure(metric: Metric, steps: readonly StepResult[], goodput: number): number {
  if (metric === 'calls/s') return goodput;
  if (metric === 'errors') {
    const failed = steps.reduce((n, s) => n + Object.values(s.errors).reduce((a, b) => a + b, 0), 0);
    const calls = steps.reduce((n, s) => n + s.calls, 0) + failed;
    return calls === 0 ? 0 : failed / calls;
  }
  const latencies = summary(merge(steps.map((s) => s.all.histogram)));
  const percentile = LATENCIES[metric];
  if (percentile === -1) return latencies.mean;
  return {
    50: latencies.p50,
    90: latencies.p90,
    95: latencies.p95,
    99: latencies.p99,
    99.9: latencies.p999,
    100: latencies.max,
  }[percentile];
}

function holds(actual: number, op: Op, limit: number): boolean {
  return op === '<' ? actual < limit : op === '<=' ? actual <= limit : op === '>' ? actual > limit : actual >= limit;
}

function show(metric: Metric, value: number): string {
  if (metric === 'errors') return `${+(value * 100).toPrecision(3)}%`;
  if (metric === 'calls/s') return `${int(value)} calls/s`;
  return `${+(value / 1000).toPrecision(3)} ms`;
}
