import type { ResultFile } from '@mcp-db-bench/contract';
import { type LatencySummary, merge, summary } from '../histogram.js';
import { groupSteps, medianGoodput } from './groups.js';

/**
 * A run in the Prometheus text exposition format (0.0.4): one file per run, for node_exporter's
 * textfile collector or a Pushgateway PUT. A step is its target (the server or database
 * measured), index set, workload and agents, its iterations combined as the report combines
 * them: calls and errors added up, calls/s their median, latency from the merged histograms.
 * No sample carries a timestamp (the textfile collector refuses them); the run's end is a gauge.
 */
export function prometheusText(result: ResultFile): string {
  const families: Family[] = [];
  const family = (name: string, type: Family['type'], help: string) => {
    const f: Family = { name: `mcp_db_bench_${name}`, type, help, lines: [] };
    families.push(f);
    return f;
  };
  const finished = family('run_finished_timestamp_seconds', 'gauge', 'When the run finished, seconds since the epoch');
  const rate = family('calls_per_second', 'gauge', 'Successful calls per second (goodput), median over iterations');
  const calls = family('calls_total', 'counter', 'Successful calls in the measured windows');
  const errors = family('errors_total', 'counter', 'Failed calls in the measured windows (never timed)');
  const byKind = family('errors_by_kind_total', 'counter', 'Failed calls, by kind');
  const seconds = family('measured_seconds', 'gauge', 'Length of the measured windows, added up over iterations');
  const latency = family('latency_seconds', 'summary', 'Latency of successful calls, from the merged histograms');
  const init = family(
    'session_init_seconds',
    'summary',
    "Whole agent start (handshake, tools/list, list_tables, describe_table for the task's tables): cold on a new " +
      'connection each time, warm on one, full describing every table',
  );

  const partial = family('run_partial', 'gauge', '1: the run was interrupted, these are the steps it finished');
  sample(finished, {}, Date.parse(result.finishedAt) / 1000);
  sample(partial, {}, result.partial ? 1 : 0);
  for (const g of groupSteps(result.steps)) {
    const labels = { target: g.target, indexes: g.indexes ?? '', workload: g.workload, agents: String(g.agents) };
    const failed = new Map<string, number>();
    for (const s of g.steps)
      for (const [kind, n] of Object.entries(s.errors)) failed.set(kind, (failed.get(kind) ?? 0) + n);
    sample(rate, labels, medianGoodput(g).median);
    sample(
      calls,
      labels,
      g.steps.reduce((n, s) => n + s.calls, 0),
    );
    sample(
      errors,
      labels,
      [...failed.values()].reduce((a, b) => a + b, 0),
    );
    for (const [kind, n] of [...failed].sort(([a], [b]) => a.localeCompare(b))) sample(byKind, { ...labels, kind }, n);
    sample(seconds, labels, g.steps.reduce((t, s) => t + s.durationMs, 0) / 1000);
    quantiles(latency, labels, summary(merge(g.steps.map((s) => s.all.histogram))));
  }
  for (const s of result.sessionInit) {
    const labels = { target: s.target, indexes: s.indexes ?? '' };
    quantiles(init, { ...labels, start: 'cold' }, summary(merge([s.cold.histogram])));
    quantiles(init, { ...labels, start: 'warm' }, summary(merge([s.warm.histogram])));
    if (s.full) quantiles(init, { ...labels, start: 'full' }, summary(merge([s.full.histogram])));
  }
  return families
    .filter((f) => f.lines.length)
    .map((f) => `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n${f.lines.join('')}`)
    .join('');
}

interface Family {
  name: string;
  type: 'gauge' | 'counter' | 'summary';
  help: string;
  lines: string[];
}

/** The quantiles a summary reports, with the histogram's percentile for each. */
const QUANTILES: [string, keyof LatencySummary][] = [
  ['0.5', 'p50'],
  ['0.9', 'p90'],
  ['0.99', 'p99'],
  ['0.999', 'p999'],
];

/** A latency summary (microseconds in the histograms, seconds here), with its sum and count. */
function quantiles(f: Family, labels: Record<string, string>, h: LatencySummary): void {
  for (const [quantile, key] of QUANTILES) sample(f, { ...labels, quantile }, h[key] / 1e6);
  sample(f, labels, (h.mean * h.count) / 1e6, '_sum');
  sample(f, labels, h.count, '_count');
}

function sample(f: Family, labels: Record<string, string>, value: number, suffix = ''): void {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  f.lines.push(`${f.name}${suffix}${pairs.length ? `{${pairs.join(',')}}` : ''} ${number(value)}\n`);
}

/** Go's ParseFloat reads what JavaScript writes, but for the infinities' spelling. */
function number(n: number): string {
  if (n === Number.POSITIVE_INFINITY) return '+Inf';
  if (n === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(n);
}

const escapeLabel = (v: string) => v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
const escapeHelp = (v: string) => v.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
